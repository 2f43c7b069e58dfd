// The offline page (/play/offline/): choose a game against the computer, resume the one in
// progress, see the local statistics; the game itself is the same table app as online play
// (static/js/table/app.js) over the local transport (local.js). Works with no network once
// the service worker has cached the page, the table's modules, Pyodide and the engine.

import { TableApp } from "../table/app.js";
import { LocalEngine } from "./engine.js";
import { LocalTransport } from "./local.js";
import { LEVEL_NAMES, MODE_NAMES, mine, offlineStats } from "./stats.js";
import { allGames, currentGame, deleteGame, getGame, saveGame } from "./store.js";
import { syncPending } from "./sync.js";

const page = document.getElementById("offline-page");
const urls = page ? JSON.parse(document.getElementById("offline-data").textContent) : null;
let engine = null;

const $ = (id) => document.getElementById(id);

function say(text) {
  $("offline-status").textContent = text;
}

function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hx = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hx.slice(0, 8)}-${hx.slice(8, 12)}-${hx.slice(12, 16)}-${hx.slice(16, 20)}-${hx.slice(20)}`;
}

function startEngine() {
  if (!engine) {
    engine = new LocalEngine(urls);
    window.ginOffline = { engine, started: performance.now() };
    engine.ready.then((r) => {
      if (r.ok) {
        window.ginOffline.readyMs = r.ms;
        window.ginOffline.startup = { pyodideMs: r.pyodideMs, engineMs: r.engineMs, snapshot: r.snapshot, steps: r.steps };
        say("Ready: the game runs on this device, with or without a network.");
      } else say(r.error);
    });
  }
  return engine;
}

function describe(doc) {
  const who = doc.computers > 1 ? `${doc.computers} computers` : "the computer";
  return `${MODE_NAMES[doc.mode]} against ${who} (${LEVEL_NAMES[doc.level]}), to ${doc.target}`;
}

/** localStorage ``gin.offline.seed``: every new game deals from this seed (the browser tests
 *  use it so that a game, and the seeded computers' moves in it, are the same on every run). */
function forcedSeed() {
  const raw = localStorage.getItem("gin.offline.seed");
  const n = raw === null ? NaN : Number(raw);
  return Number.isInteger(n) && n >= 0 ? { seed: n } : {};
}

async function newGame(config) {
  const r = await startEngine().call("new", { config: { ...config, ...forcedSeed(), id: uuid(), name: urls.name || "You" } });
  if (!r.ok) throw new Error(r.error);
  const doc = { ...r.doc, updated_at: Date.now(), synced: false, owner: urls.owner || null };
  await saveGame(doc);
  return doc;
}

/** "Play again": a new game with the same settings; its URL (the page opens it). */
async function rematch(doc) {
  const next = await newGame({ mode: doc.mode, level: doc.level, computers: doc.computers, target: doc.target });
  return `${window.location.pathname}?game=${encodeURIComponent(next.id)}`;
}

function openTable(doc) {
  startEngine();
  $("offline-setup").hidden = true;
  const root = $("table-app");
  root.hidden = false;
  document.documentElement.classList.add("js-table");
  document.body.classList.add("page-table");
  const url = `${window.location.pathname}?game=${encodeURIComponent(doc.id)}`;
  if (window.location.search !== `?game=${encodeURIComponent(doc.id)}`) history.replaceState(null, "", url);
  document.title = `${describe(doc)} · Gin Rummy`;
  window.ginTable = new TableApp(root, {
    table_id: `offline-${doc.id}`,
    room_url: window.location.pathname,
    you: { username: null, authenticated: false },
    transport: (handlers) => {
      const t = new LocalTransport(engine, doc, handlers, {
        rematch,
        onSaved: (d) => { if (d.status === "finished" && urls.signed_in) syncPending(urls.owner); },
      });
      window.ginOffline.transport = t;
      return t;
    },
  });
}

async function renderResume() {
  const doc = await currentGame(urls.owner);
  const box = $("offline-resume");
  box.hidden = !doc;
  if (!doc) return;
  $("offline-resume-text").textContent = `${describe(doc)}: ${doc.summary ? "" : "in progress"}.`;
  $("offline-resume-btn").onclick = () => openTable(doc);
  $("offline-discard-btn").onclick = async () => {
    await deleteGame(doc.id);
    renderResume();
  };
}

async function renderStats() {
  const docs = mine(await allGames(), urls.owner);
  const rows = offlineStats(docs);
  const body = $("offline-stats-body");
  body.replaceChildren();
  $("offline-stats-empty").hidden = rows.length > 0;
  $("offline-stats-table").hidden = rows.length === 0;
  // (its scrolling box is a tab stop: hidden too while empty, not a stop 0 px high)
  $("offline-stats-table").closest(".table-scroll").hidden = rows.length === 0;
  for (const r of rows) {
    const tr = document.createElement("tr");
    const cells = [MODE_NAMES[r.mode], LEVEL_NAMES[r.level], r.played, r.won, r.lost, r.tied,
      `${Math.round((100 * r.won) / r.played)}%`, r.best === null ? "–" : `+${r.best}`];
    cells.forEach((c, i) => {
      const td = document.createElement(i === 0 ? "th" : "td");
      if (i === 0) td.scope = "row";
      td.textContent = String(c);
      tr.append(td);
    });
    body.append(tr);
  }
  const finished = docs.filter((d) => d.status === "finished");
  const checking = finished.filter((d) => !d.synced && !d.refused && d.checking).length;
  const waiting = finished.filter((d) => !d.synced && !d.refused && !d.checking).length;
  const refused = finished.filter((d) => d.refused);
  const sync = $("offline-sync");
  const parts = [];
  if (!urls.signed_in) parts.push("Sign in to keep your finished offline games in your archive and statistics.");
  else if (waiting) parts.push(`${waiting} finished game${waiting > 1 ? "s" : ""} will be added to your archive when the site is reachable.`);
  else if (finished.length && !refused.length && !checking) parts.push("Every finished offline game is in your archive.");
  else if (finished.length > refused.length + checking) {
    const kept = finished.length - refused.length - checking;
    parts.push(`${kept} finished offline game${kept > 1 ? "s are" : " is"} in your archive.`);
  }
  if (urls.signed_in && checking) {
    parts.push(`${checking} game${checking > 1 ? "s" : ""} against the Expert ${checking > 1 ? "are" : "is"} being checked by the server (it plays the Expert's moves again) and will join your archive shortly.`);
  }
  for (const d of refused) parts.push(`A game could not be stored: ${d.refused}`);
  sync.textContent = parts.join(" ");
}

function setupForm() {
  const form = $("offline-form");
  const mode = form.elements.mode;
  const computers = $("offline-computers-field");
  const sync = () => { computers.hidden = mode.value !== "rummy"; };
  mode.addEventListener("change", sync);
  sync();
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const target = form.elements.target.value ? Number(form.elements.target.value) : null;
    const config = {
      mode: mode.value,
      level: Number(form.elements.level.value),
      computers: mode.value === "rummy" ? Number(form.elements.computers.value) : 1,
      target,
    };
    const btn = form.querySelector("button[type=submit]");
    btn.disabled = true;
    say("Dealing…");
    try {
      openTable(await newGame(config));
    } catch (err) {
      say(err.message || String(err));
    } finally {
      btn.disabled = false;
    }
  });
}

async function boot() {
  if (!page) return;
  if (!("indexedDB" in window) || !("Worker" in window) || typeof WebAssembly !== "object") {
    say("This browser cannot play offline (it lacks IndexedDB, web workers or WebAssembly).");
    return;
  }
  startEngine();
  setupForm();
  const wanted = new URLSearchParams(window.location.search).get("game");
  if (wanted) {
    const doc = await getGame(wanted);
    if (doc && doc.state) {
      openTable(doc);
      return;
    }
    if (doc && doc.game_url && navigator.onLine) {
      // finished and filed in the archive (the device keeps only its statistics)
      window.location.replace(doc.game_url);
      return;
    }
    history.replaceState(null, "", window.location.pathname);
  }
  await renderResume();
  if (urls.signed_in && navigator.onLine) await syncPending(urls.owner);
  await renderStats();
}

boot();
