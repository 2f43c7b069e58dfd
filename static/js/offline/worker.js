// The offline game's engine: a module web worker that runs Pyodide with the project's own
// games/engine, games/bots and games/local (the package built by manage.py
// build_offline_engine), so that the page stays responsive while a computer thinks.
//
// Messages in: {id, type: "init", pyodide, indexURL, engine} once, then {id, op, ...}
// (games/local/table.py handle()). Out: {id, ok, ...} for each, {type: "ready", ms} after init.
//
// Start-up: Python's own start (about 90% of it) and the import of the engine are done once.
// The first start saves a memory snapshot of the started interpreter with every module of the
// package imported (Pyodide's makeMemorySnapshot) in the Cache Storage, keyed by Pyodide's
// version and the sha256 of the engine package; later starts restore it (docs/offline.md).

// (not "gin-…": the service worker deletes those on update; this one holds one entry, below)
const SNAPSHOT_CACHE = "offline-snapshot";
// every module of the package, imported before the snapshot so that no game pays for it later
const SNAPSHOT_IMPORTS = ["games.local.table", "games.bots.expert", "games.bots.levels"];
// a restore takes about 1 s; one that has not started by then never will
const RESTORE_TIMEOUT_MS = 20000;

let table = null;
let ready = null;
let pendingSnapshot = null;

function importTable(py) {
  // (a name built at run time: collectstatic rewrites what looks like a module import)
  return py.pyimport(["games", "local", "table"].join("."));
}

async function sha256(buf) {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", buf));
  return [...d].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function openSnapshots() {
  try {
    return self.caches ? await caches.open(SNAPSHOT_CACHE) : null;
  } catch {
    return null; // no Cache Storage (a private window, say): start without the snapshot
  }
}

async function engineBytes(url) {
  const resp = await fetch(url);
  if (!resp.ok) throw new Error(`engine package: HTTP ${resp.status}`);
  const buf = await resp.arrayBuffer();
  return { buf, hash: await sha256(buf) };
}

async function init(msg) {
  const t0 = performance.now();
  const [{ loadPyodide }, engine, cache] = await Promise.all([
    import(msg.pyodide), engineBytes(msg.engine), openSnapshots(),
  ]);
  const tFiles = performance.now();
  const key = new URL(`/offline-snapshot/${encodeURIComponent(msg.indexURL)}/${engine.hash}`, self.location.origin).href;
  const unpack = (py) => {
    py.unpackArchive(engine.buf.slice(0), "zip", { extractDir: "/offline" });
  };
  let snapshot = null;
  try {
    const hit = cache && (await cache.match(key));
    if (hit) {
      snapshot = new Uint8Array(await hit.arrayBuffer());
      // a snapshot cut short would not start (Pyodide waits for ever): check its length
      if (snapshot.length !== Number(hit.headers.get("X-Snapshot-Bytes"))) {
        snapshot = null;
        await cache.delete(key);
      }
    }
  } catch {
    snapshot = null;
  }
  const tRead = performance.now();
  if (snapshot) {
    try {
      const py = await Promise.race([
        loadPyodide({ indexURL: msg.indexURL, fullStdLib: false, _loadSnapshot: snapshot }),
        new Promise((_, reject) => setTimeout(() => reject(new Error("the snapshot did not start")), RESTORE_TIMEOUT_MS)),
      ]);
      const t1 = performance.now();
      const steps = { filesMs: Math.round(tFiles - t0), readMs: Math.round(tRead - tFiles), loadMs: Math.round(t1 - tRead) };
      // the files are not in the snapshot (only Python's memory): for any import made later
      unpack(py);
      // a new random state for this start (the snapshot's would repeat on every start)
      py.runPython("import random; random.seed()");
      table = importTable(py);
      const t2 = performance.now();
      return { ms: Math.round(t2 - t0), pyodideMs: Math.round(t1 - t0), engineMs: Math.round(t2 - t1), snapshot: "used", steps };
    } catch (err) {
      console.warn("The saved start of the game engine could not be used; starting afresh.", err);
      if (cache) await cache.delete(key).catch(() => {});
    }
  }
  const py = await loadPyodide({ indexURL: msg.indexURL, fullStdLib: false, _makeSnapshot: !!cache });
  const t1 = performance.now();
  unpack(py);
  py.runPython("import sys; sys.path.insert(0, '/offline')");
  table = importTable(py);
  const t2 = performance.now();
  if (cache) {
    pendingSnapshot = () => saveSnapshot(py, cache, key);
  }
  return { ms: Math.round(t2 - t0), pyodideMs: Math.round(t1 - t0), engineMs: Math.round(t2 - t1), snapshot: cache ? "made" : "none" };
}

/** Once, after the first start is answered and before any game: the snapshot for later starts. */
async function saveSnapshot(py, cache, key) {
  try {
    const t0 = performance.now();
    py.runPython(SNAPSHOT_IMPORTS.map((m) => `import ${m}`).join("\n"));
    const bytes = py.makeMemorySnapshot();
    const ms = Math.round(performance.now() - t0);
    for (const old of await cache.keys()) await cache.delete(old);
    await cache.put(key, new Response(bytes, {
      headers: { "Content-Type": "application/octet-stream", "X-Snapshot-Bytes": String(bytes.length) },
    }));
    self.postMessage({ type: "snapshot", ok: true, ms, bytes: bytes.length });
  } catch (err) {
    self.postMessage({ type: "snapshot", ok: false, error: String(err && err.message ? err.message : err) });
  }
}

self.addEventListener("message", async (e) => {
  const msg = e.data || {};
  if (msg.type === "init") {
    if (!ready) ready = init(msg);
    try {
      const times = await ready;
      self.postMessage({ id: msg.id, ok: true, type: "ready", ...times });
      if (pendingSnapshot) {
        const save = pendingSnapshot;
        pendingSnapshot = null;
        await save();
      }
    } catch (err) {
      ready = null;
      self.postMessage({ id: msg.id, ok: false, error: `The game engine could not start: ${err && err.message ? err.message : err}` });
    }
    return;
  }
  try {
    await ready;
    const t0 = performance.now();
    const out = JSON.parse(table.handle(JSON.stringify({ ...msg, id: undefined, now: Date.now() })));
    out.ms = performance.now() - t0;
    self.postMessage({ ...out, id: msg.id });
  } catch (err) {
    self.postMessage({ id: msg.id, ok: false, error: String(err && err.message ? err.message : err) });
  }
});
