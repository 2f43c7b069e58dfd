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
  const range = t.range ? ` · for ${t.range.low} to ${t.range.high}` : "";
  li.append(el("span", `${t.seat_count} players · to ${t.target} · ${timing} · ${t.rated ? "rated" : "casual"}${range}`));
  // as the page draws it: each name with its rating tag, then the free seats
  const who = el("span", null, "muted");
  t.players.forEach((p, i) => {
    if (i) who.append(", ");
    who.append(p.name);
    if (p.rating) who.append(" ", el("span", p.rating, "rating-tag"));
  });
  if (t.free_seats) who.append(`${t.players.length ? " · " : ""}${t.free_seats} free seat${t.free_seats === 1 ? "" : "s"}`);
  li.append(who);
  if (join && t.yours) li.append(el("span", "Your table: waiting for players.", "muted table-range-note"));
  if (join && t.range && t.range.fits === false) {
    li.append(el("span", "Your rating is outside this table's range.", "muted table-range-note"));
  }
  if (join && t.can_join) {
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
  // with no network a request can only fail (an error in the console every tick): wait
  if (navigator.onLine === false) throw new Error("offline");
  const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json();
}

/** The room's filters (a GET form): the query they make, without the empty ("any") ones. */
function filterQuery(form) {
  const query = new URLSearchParams();
  if (!form) return query;
  for (const [name, value] of new FormData(form)) if (value) query.set(name, value);
  return query;
}

function startRoom(root) {
  const openList = document.getElementById("open-tables");
  const playingList = document.getElementById("playing-tables");
  const onlineList = document.getElementById("online-list");
  const onlineCount = document.getElementById("online-count");
  const filters = document.getElementById("room-filters");
  const clear = document.getElementById("room-filters-clear");
  const emptyText = (list, filtered) => (list ? list.dataset[filtered ? "emptyFiltered" : "empty"] : "");
  async function refresh() {
    if (document.visibilityState !== "visible") return;
    const query = filterQuery(filters);
    const filtered = [...query.keys()].length > 0;
    try {
      const data = await fetchJson(filtered ? `${root.dataset.jsonUrl}?${query}` : root.dataset.jsonUrl);
      fillList(openList, data.open, (t) => tableRow(t, root.dataset.joinToken || ""), emptyText(openList, filtered));
      fillList(playingList, data.playing, (t) => tableRow(t), emptyText(playingList, filtered));
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
  if (filters) {
    // A choice applies at once (the Show button is for a browser without scripts); the
    // address keeps it, so a reload or a shared link shows the same tables.
    const apply = document.getElementById("room-filters-apply");
    if (apply) apply.hidden = true;
    const quick = document.getElementById("room-quick");
    filters.addEventListener("change", () => {
      // Play now asks for what the filters show
      for (const select of filters.querySelectorAll("select")) {
        const mirror = quick && quick.querySelector(`input[name="${CSS.escape(select.name)}"]`);
        if (mirror) mirror.value = select.value;
      }
      const query = filterQuery(filters);
      const filtered = [...query.keys()].length > 0;
      history.replaceState(null, "", filtered ? `${location.pathname}?${query}` : location.pathname);
      if (clear) clear.hidden = !filtered;
      for (const error of filters.querySelectorAll(".errorlist")) error.remove();
      refresh();
    });
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
