// SHA-256 and random names through Bun's native hasher and Web Crypto, not node:crypto: that
// module's Hash is a Node stream, and loading it (streams and all) was about a seventh of a cold
// call's CPU.
export const sha256Hex = (data: string | Uint8Array): string =>
  new Bun.CryptoHasher("sha256").update(data).digest("hex");

/** A SHA-256 fed in pieces (a large file read in chunks). */
export const sha256 = () => new Bun.CryptoHasher("sha256");

/** `bytes` random bytes as hex (a temporary file's or a task's name). */
export const randomHex = (bytes: number): string =>
  Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
