// Live lobby and room lists: polls the small JSON endpoints every 5 s (docs/protocol.md)
// and redraws the lists with textContent (never innerHTML: names are user text).

const POLL_MS = 5000;

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** A row of the room's tables; ``join``: the CSRF token of a player who may take a seat (a
 * waiting table's row then has a Join button: it took opening the table first). */
function tableRow(t, join = "") {
  const li = el("li", null, "table-row");
  const link = el("a", `Table ${t.id}`);
  link.href = t.url;
  li.append(link);
  const timing = t.seconds_per_turn ? `${t.seconds_per_turn} s` : "untimed";
  li.append(el("span", `${t.seat_count} players · to ${t.target} · ${timing} · ${t.rated ? "rated" : "casual"}`));
  let who = t.players.map((p) => (p.rating ? `${p.name} (${p.rating})` : p.name)).join(", ");
  if (t.free_seats) who += `${who ? " · " : ""}${t.free_seats} free seat${t.free_seats === 1 ? "" : "s"}`;
  li.append(el("span", who, "muted"));
  if (join && t.free_seats) {
    const form = el("form", null, "table-join");
    form.method = "post";
    form.action = `/tables/${encodeURIComponent(t.id)}/sit/`;
    const token = el("input");
    token.type = "hidden";
    token.name = "csrfmiddlewaretoken";
    token.value = join;
    const button = el("button", "Join", "button button-small");
    button.type = "submit";
    button.append(el("span", ` table ${t.id}`, "visually-hidden"));
    form.append(token, button);
    li.append(form);
  }
  return li;
}

function fillList(list, items, render, emptyText) {
  if (!list) return;
  const nodes = items.length ? items.map(render) : [el("li", emptyText, "muted")];
  list.replaceChildren(...nodes);
}

async function fetchJson(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json();
}

function startRoom(root) {
  const url = root.dataset.jsonUrl;
  const openList = document.getElementById("open-tables");
  const playingList = document.getElementById("playing-tables");
  const onlineList = document.getElementById("online-list");
  const onlineCount = document.getElementById("online-count");
  async function refresh() {
    if (document.visibilityState !== "visible") return;
    try {
      const data = await fetchJson(url);
      fillList(openList, data.open, (t) => tableRow(t, root.dataset.joinToken || ""), "No table is waiting. Create one below.");
      fillList(playingList, data.playing, (t) => tableRow(t), "No game in progress.");
      fillList(onlineList, data.online, (p) => {
        const li = el("li");
        const a = el("a", p.name);
        a.href = `/u/${encodeURIComponent(p.username)}/`;
        li.append(a);
        if (p.rating) li.append(" ", el("span", p.rating, "rating-tag"));
        return li;
      }, "Nobody yet.");
      if (onlineCount) onlineCount.textContent = String(data.online_count);
    } catch (err) {
      // keep the last lists; the next poll retries
    }
  }
  setInterval(refresh, POLL_MS);
  document.addEventListener("visibilitychange", refresh);
}

function startLobby(list) {
  const url = list.dataset.jsonUrl;
  async function refresh() {
    if (document.visibilityState !== "visible") return;
    try {
      const data = await fetchJson(url);
      for (const room of data.rooms) {
        const card = list.querySelector(`[data-room="${CSS.escape(room.slug)}"]`);
        if (!card) continue;
        card.querySelector(".js-online").textContent = String(room.online);
        card.querySelector(".js-open").textContent = String(room.open_tables);
        card.querySelector(".js-playing").textContent = String(room.playing_tables);
      }
    } catch (err) {
      // try again at the next tick
    }
  }
  setInterval(refresh, POLL_MS);
  document.addEventListener("visibilitychange", refresh);
}

function showRummySeats() {
  // "Play the computer": the players choice only matters for Rummy.
  const mode = document.getElementById("id_mode");
  const seats = document.getElementById("id_seats");
  if (!mode || !seats) return;
  const row = seats.closest(".form-row");
  const sync = () => {
    const rummy = mode.value === "rummy";
    if (row) row.hidden = !rummy;
    if (!rummy) seats.value = "2";
  };
  mode.addEventListener("change", sync);
  sync();
}

const room = document.getElementById("room-live");
if (room) startRoom(room);
const lobby = document.getElementById("room-list");
if (lobby) startLobby(lobby);
if (document.querySelector(".computer-form")) showRummySeats();
