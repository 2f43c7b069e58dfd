// The page's side of the engine worker (worker.js): one request, one promise.

export class LocalEngine {
  /** urls: {worker, pyodide, indexURL, engine} from the page's data. */
  constructor(urls) {
    this.urls = urls;
    this.worker = new Worker(urls.worker, { type: "module", name: "gin-engine" });
    this.seq = 0;
    this.waiting = new Map();
    this.worker.addEventListener("message", (e) => {
      const msg = e.data || {};
      const p = this.waiting.get(msg.id);
      if (!p) return;
      this.waiting.delete(msg.id);
      p(msg);
    });
    this.worker.addEventListener("error", (e) => {
      for (const p of this.waiting.values()) p({ ok: false, error: `The game engine stopped: ${e.message || "error"}` });
      this.waiting.clear();
    });
    this.ready = this.request({ type: "init", pyodide: urls.pyodide, indexURL: urls.indexURL, engine: urls.engine });
  }

  request(msg) {
    const id = ++this.seq;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.postMessage({ ...msg, id });
    });
  }

  /** {op, ...} after the engine is ready; resolves with the answer ({ok, ...}). */
  async call(op, args = {}) {
    const r = await this.ready;
    if (!r.ok) return r;
    return this.request({ op, ...args });
  }
}
