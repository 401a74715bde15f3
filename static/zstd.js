// Zstandard decoding for the worker (the memory snapshots are zstd frames: see
// sitebuild/snapshot.py). The decoder is the zstd project's own, compiled to WebAssembly
// (runtime/zstd-decoder.wasm); this file only feeds it a download chunk by chunk, so the
// decoding keeps pace with the network, and collects its output in one buffer of known size.

// Two { pointer, size, position } records of u32 in the decoder's memory: input, output.
const IN = 0;
const OUT = 12;

// The decoder compiled, from the (promised) response that downloads it. Each frame gets an
// instance of its own: an instance's memory grows to hold the frame's window and never
// shrinks, so a decoder kept for later would hold the largest window it ever decoded.
async function zstdDecoder(response) {
  return WebAssembly.compile(await (await response).arrayBuffer());
}

// One zstd frame being decoded into a buffer of `size` bytes, the size it must unpack to:
// `push` feeds it input as it arrives, `done` returns the bytes. Its decoder's memory goes
// with the frame.
function zstdFrame(decoder, size) {
  const imports = { env: { emscripten_notify_memory_growth: () => {} } };
  const z = new WebAssembly.Instance(decoder, imports).exports;
  const inSize = z.ZSTD_DStreamInSize();
  const outSize = z.ZSTD_DStreamOutSize();
  const dctx = z.ZSTD_createDCtx();
  const src = z.malloc(inSize);
  const dst = z.malloc(outSize);
  const records = z.malloc(24);
  const out = new Uint8Array(size);
  let filled = 0;
  let hint = -1; // ZSTD_decompressStream's last answer: 0 once the frame is complete
  // The decoder's memory may grow inside any call: take fresh views after each one.
  const u32 = () => new Uint32Array(z.memory.buffer, records, 6);
  return {
    push(chunk) {
      for (let at = 0; at < chunk.length; at += inSize) {
        const part = chunk.subarray(at, at + inSize);
        new Uint8Array(z.memory.buffer).set(part, src);
        u32().set([src, part.length, 0], IN / 4);
        let record;
        do {
          u32().set([dst, outSize, 0], OUT / 4);
          hint = z.ZSTD_decompressStream(dctx, records + OUT, records + IN);
          if (hint < 0) throw new Error(`not a valid zstd stream (zstd error ${-hint})`);
          record = u32();
          const n = record[OUT / 4 + 2];
          if (filled + n > size) throw new Error(`it unpacks to more than ${size} bytes`);
          out.set(new Uint8Array(z.memory.buffer, dst, n), filled);
          filled += n;
          // Go on while input is left, or while a full output buffer may hide more.
        } while (record[IN / 4 + 2] < part.length || record[OUT / 4 + 2] === outSize);
      }
    },
    done() {
      if (hint !== 0 || filled !== size) {
        throw new Error(`it is cut short (${filled} of ${size} bytes)`);
      }
      return out;
    },
  };
}

// Decode the zstd frame that `body` (a ReadableStream of Uint8Array) carries, which must
// unpack to exactly `size` bytes.
async function unzstd(decoder, body, size) {
  // A reader, not `for await`: Safari long had no async iteration of ReadableStream.
  const reader = body.getReader();
  const frame = zstdFrame(decoder, size);
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      frame.push(read.value);
    }
    return frame.done();
  } catch (err) {
    reader.cancel(err).catch(() => {}); // stop the download: the rest is not wanted
    throw err;
  } finally {
    reader.releaseLock();
  }
}

// The same, for a frame already downloaded whole (`bytes`, a Uint8Array), at once.
function unzstdNow(decoder, bytes, size) {
  const frame = zstdFrame(decoder, size);
  frame.push(bytes);
  return frame.done();
}
