// The explicit list of built-in tools: adding a tool means adding a line here.
import type { ToolDeclaration } from "../catalog/declare.ts";
import fileFind from "./files/file-find.ts";
import fileRead from "./files/file-read.ts";
import fileSearch from "./search/file-search.ts";
import skillList from "./skills/skill-list.ts";
import skillLoad from "./skills/skill-load.ts";
import plan from "./lane/plan.ts";
import desk from "./lane/desk.ts";
import fileEdit from "./files/file-edit.ts";
import fileWrite from "./files/file-write.ts";
import scratchRead from "./shell/scratch-read.ts";
import bash from "./shell/bash.ts";
import devCheck from "./gates/dev-check.ts";
import webExtract from "./net/web-extract.ts";
import taskList from "./tasks/task-list.ts";
import taskStatus from "./tasks/task-status.ts";
import taskControl from "./tasks/task-control.ts";
import yieldUntil from "./tasks/yield-until.ts";

// Each entry keeps its own argument type; the list only needs the shape.
export const builtinTools: readonly ToolDeclaration[] = [
  scratchRead,
  fileRead,
  fileFind,
  fileSearch,
  fileEdit,
  fileWrite,
  skillList,
  skillLoad,
  bash,
  devCheck,
  webExtract,
  plan,
  desk,
  taskList,
  taskStatus,
  taskControl,
  yieldUntil,
];
