// A guardian without a parent-death signal notices its parent's death by its parent pid changing.
import { expect, test } from "bun:test";
import { watchParent } from "../../../src/platform/portable/parent-watch.ts";

test("calls back once, when the parent pid is no longer the parent's", async () => {
  let ppid = 4242;
  let calls = 0;
  const { promise, resolve } = Promise.withResolvers<void>();
  watchParent(
    4242,
    () => (calls++, resolve()),
    () => ppid,
    5,
  );
  await Bun.sleep(30);
  expect(calls).toBe(0);
  ppid = 1;
  await promise;
  await Bun.sleep(20);
  expect(calls).toBe(1);
});

test("stopped, it calls nothing", async () => {
  let calls = 0;
  const stop = watchParent(
    4242,
    () => calls++,
    () => 1,
    5,
  );
  stop();
  await Bun.sleep(30);
  expect(calls).toBe(0);
});
