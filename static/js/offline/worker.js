// The offline game's engine: a module web worker that runs Pyodide with the project's own
// games/engine, games/bots and games/local (the package built by manage.py
// build_offline_engine), so that the page stays responsive while a computer thinks.
//
// Messages in: {id, type: "init", pyodide, indexURL, engine} once, then {id, op, ...}
// (games/local/table.py handle()). Out: {id, ok, ...} for each, {type: "ready", ms} after init.

let table = null;
let ready = null;

async function init(msg) {
  const t0 = performance.now();
  const { loadPyodide } = await import(msg.pyodide);
  const py = await loadPyodide({ indexURL: msg.indexURL, fullStdLib: false });
  const t1 = performance.now();
  const resp = await fetch(msg.engine);
  if (!resp.ok) throw new Error(`engine package: HTTP ${resp.status}`);
  py.unpackArchive(await resp.arrayBuffer(), "zip", { extractDir: "/offline" });
  py.runPython("import sys; sys.path.insert(0, '/offline')");
  // (a name built at run time: collectstatic rewrites what looks like a module import)
  table = py.pyimport(["games", "local", "table"].join("."));
  const t2 = performance.now();
  return { ms: Math.round(t2 - t0), pyodideMs: Math.round(t1 - t0), engineMs: Math.round(t2 - t1) };
}

self.addEventListener("message", async (e) => {
  const msg = e.data || {};
  if (msg.type === "init") {
    if (!ready) ready = init(msg);
    try {
      const times = await ready;
      self.postMessage({ id: msg.id, ok: true, type: "ready", ...times });
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
