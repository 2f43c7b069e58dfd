// The panel over the table when a hand ends (both hands shown, the score explained) and when
// the game is over (final tables, ratings, rematch). View functions take the table
// controller (app.js); the bonuses are the mode's settings in the view.

import { describeHandResult, plural, seatName } from "./announce.js";
import { cardLabel, cardsValue, createCard, parseCard } from "./cards.js";
import { clear, focusFirstButton, h, reveal, store, updateChildren } from "./dom.js";
import { ctxAtHand, gameEndedByHand, seatScore } from "./seats.js";
import { finalTables, fitSheetNames, openSheet, sheetLabels } from "./sheet.js";

const ENDING_TEXT = {
  normal: "",
  resignation: "by resignation",
  timeout: "on time",
  abandonment: "by abandonment",
  no_show: "by a no-show",
};

/** Which panel shows: "game-over", "hand-<n>" (the last hand's result, or an earlier one
 * still being read: ``resultHeld``) or null. */
export function panelKey(frame, view, { resultHand, resultHeld, gameOverClosed }) {
  // (a table closed before its game began has no game to be over: the felt says it closed)
  const over = frame.table.status === "finished" || (frame.table.status === "abandoned" && view) || (view && view.is_over);
  if (over && !gameOverClosed) return "game-over";
  // a game ended by its last hand shows that hand on the felt (felt.js): no panel over it
  if (gameEndedByHand(view)) return null;
  const hr = shownResult(view, { resultHand, resultHeld });
  return hr ? `hand-${hr.hand_number}` : null;
}

/** The hand result whose panel is open: the one held over the newest while it is read
 * (``resultArrives``), else the last hand's, else null. */
export function shownResult(view, { resultHand, resultHeld }) {
  if (resultHeld && resultHand === resultHeld.hand_number) return resultHeld;
  if (view && view.last_hand && resultHand === view.last_hand.hand_number) return view.last_hand;
  return null;
}

/**
 * The result panel's state when hand ``lh``'s result arrives (``prevLast``: the last result
 * before this frame): ``{ hand, held, opened }``, the hand whose result is up, the earlier
 * result kept for it, and whether the new one opened now. A result still up for an earlier
 * hand stays up, and the new one follows it: a computer that went out before this player's
 * first turn of the next hand replaced the result being read.
 */
export function resultArrives({ hand, held }, prevLast, lh) {
  if (held && held.hand_number === hand) return { hand, held, opened: false };
  if (hand !== null && hand !== undefined && prevLast && prevLast.hand_number === hand && hand < lh.hand_number) {
    return { hand, held: prevLast, opened: false };
  }
  return { hand: lh.hand_number, held: null, opened: true };
}

/** After hand ``n``'s result closes: the hand whose result follows it (the newest, when ``n``'s
 * was held over it and the newest was not closed already), else null. */
export function resultAfter(n, held, lh, dismissed) {
  if (!held || held.hand_number !== n || !lh || lh.hand_number <= n) return null;
  return dismissed === lh.hand_number ? null : lh.hand_number;
}

/** "You score 37 (25 gin bonus + deadwood)." and the like, from the mode's settings. */
export function scoreText(hr, ctx, view) {
  const who = seatName(hr.winner, ctx);
  const s = view.settings || {};
  let score = `${who} score${who === "You" ? "" : "s"} ${hr.points}`;
  if (hr.outcome === "undercut") score += ` (${s.undercut_bonus} undercut bonus + the difference)`;
  else if (hr.outcome === "gin") score += ` (${s.gin_bonus} gin bonus + deadwood)`;
  else if (hr.outcome === "big_gin") score += ` (${s.big_gin_bonus} big gin bonus + deadwood)`;
  if (hr.multiplier > 1) score += `, doubled: the upcard was a spade`;
  const columns = (view.score_sheet && view.score_sheet.columns) || [];
  if (hr.columns && columns.length > 1) {
    // (Hollywood: a win counts in the games its winner's earlier wins reached; when those are
    // all over it counts in none, and "scores 59" alone read as points that went somewhere)
    if (hr.columns.length) score += `. Scored in game${hr.columns.length > 1 ? "s" : ""} ${hr.columns.map((c) => c + 1).join(", ")}`;
    else score += `, but ${who === "You" ? "your" : "this"} win counts in no game: the games it would score in are over`;
  }
  return `${score}.`;
}

/** The game-over title: who won, or a tie. ``places`` (``finish.places``, a table of three
 * or four) names those who share the first place when nobody won alone: "You and bob share
 * first place". */
export function gameOverTitle(winner, hasResult, ctx, places = null) {
  if (winner !== null && winner !== undefined) return seatName(winner, ctx) === "You" ? "You win the game!" : `${seatName(winner, ctx)} wins the game`;
  const firsts = Array.isArray(places) && places.length >= 3 ? places.map((p, seat) => [p, seat]).filter(([p]) => p === 1).map(([, seat]) => seat) : [];
  if (firsts.length > 1) {
    const names = firsts.map((seat) => seatName(seat, ctx));
    return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]} share first place`;
  }
  return hasResult ? "The game is a tie" : "Game over";
}

/** Who won the game as the site counts it: the rules' winner (``res.winner``), unless that seat
 * was played on by the computer for a person who left (``seats[i].left``), whose game is lost
 * whatever its seat scores; then the server's ``finish.winner_seat``, the one seat first among
 * those who stayed, or null for a shared first place (docs/protocol.md). Without a result (a
 * resignation, a claim), the server's. */
export function gameWinner(res, fin, seats = []) {
  const won = res ? res.winner : fin.winner_seat;
  if (won !== null && won !== undefined && seats[won] && seats[won].left) return fin.winner_seat ?? null;
  return won;
}

/** The margin the game-over panel names: the one first place's total less the best total
 * placed below it, from the server's places where it has them (a person who left keeps the
 * place they had taken, so the rules' margin, top total less the next, could be a leaver's
 * lead: "Margin 55" under a first place shared by two). Null for a shared first place or no
 * lead. */
export function gameMargin(res, fin) {
  const totals = res && res.totals;
  if (!Array.isArray(totals)) return null;
  const places = fin && fin.places;
  if (!Array.isArray(places) || places.length !== totals.length) return res.margin > 0 ? res.margin : null;
  const firsts = places.map((p, seat) => [p, seat]).filter(([p]) => p === 1).map(([, seat]) => seat);
  if (firsts.length !== 1) return null;
  const second = Math.min(...places.filter((p) => p > 1));
  const rest = totals.filter((t, seat) => places[seat] === second);
  const margin = rest.length ? totals[firsts[0]] - Math.max(...rest) : 0;
  return margin > 0 ? margin : null;
}

const ORDINALS = ["1st", "2nd", "3rd", "4th"];

/** "Places: 1st Computer 2 (Medium) · 2nd Computer (Medium) · 3rd you" at a table of three or
 * four (two players have the winner's title), in place order; "" without places. A place
 * taken by a person who left (``seats[i].left``) is theirs, not the computer's that played
 * their seat on: "3rd ann (left)", "3rd you (left)" for ``me``. */
export function placesText(fin, ctx, seats = [], me = null) {
  const places = fin && fin.places;
  if (!Array.isArray(places) || places.length < 3) return "";
  const order = places.map((p, seat) => [p, seat]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const nameOf = (seat) => {
    const left = seats[seat] && seats[seat].left;
    if (left) return `${me && left.username === me ? "you" : left.name || left.username} (left)`;
    return seatName(seat, ctx) === "You" ? "you" : seatName(seat, ctx);
  };
  return `Places: ${order.map(([p, seat]) => `${ORDINALS[p - 1] || `${p}th`} ${nameOf(seat)}`).join(" · ")}`;
}

/** The rematch offers of the other players (seat indexes, or names in older frames): those
 * that stand, and those whose players have left the table (lapsed: the server drops them). */
export function rematchOffers(offers, seats, mySeat, me) {
  const others = (offers || []).filter((o) => o !== me && o !== mySeat);
  const seatOf = (o) => (Number.isInteger(o) ? seats[o] : seats.find((s) => s.username === o));
  const here = (o) => { const s = seatOf(o); return !s || s.kind !== "user" || s.connected !== false; };
  return { standing: others.filter(here), lapsed: others.filter((o) => !here(o)) };
}

/** What the game-over panel says and offers about a rematch, for a seated player: ``notes``
 * (texts) and ``buttons`` (``withdraw``, ``offer``, ``accept``, ``decline``, ``go``). Once
 * the rematch is made (``rm.url``), only the way to it: the offers that made it, and the
 * players who went there, are no longer news (the old table read "bob left the table: the
 * offer has lapsed. Rematch offered: waiting for the other players…" beside "Go to the
 * rematch"). ``names(list)`` writes offers as names. */
export function rematchPanel(rm, seats, mySeat, me, names) {
  if (rm.url) return { notes: ["The rematch is ready."], buttons: ["go"] };
  const notes = [];
  const buttons = [];
  const mine = (rm.offers || []).some((o) => o === me || o === mySeat);
  const { standing, lapsed } = rematchOffers(rm.offers, seats, mySeat, me);
  if (standing.length) notes.push(`${names(standing)} would like a rematch.`);
  // an offer stands while its player is at the table (games/services/rematch.py)
  if (lapsed.length) notes.push(`${names(lapsed)} left the table: ${lapsed.length > 1 ? "their offers have" : "the offer has"} lapsed.`);
  if (mine) {
    buttons.push("withdraw");
    notes.push("Rematch offered: waiting for the other players…");
  } else {
    buttons.push(standing.length ? "accept" : "offer");
    if (standing.length) buttons.push("decline");
  }
  return { notes, buttons };
}

/** Where "Go to the rematch" leads once the rematch is made, or null: for players and
 * spectators alike, but a private rematch is its players' alone (one who left the game still
 * sees this table, and the link led them to a 404). */
export function rematchLink(table, mySeat) {
  const url = table && table.rematch && table.rematch.url;
  if (!url || (table.private && mySeat === null)) return null;
  return url;
}

/** The seats of the other players whose rematch offers are new in ``frame``. */
export function newRematchOffers(prev, frame, mySeat) {
  const before = new Set(((prev && prev.table && prev.table.rematch) || {}).offers || []);
  const now = ((frame.table && frame.table.rematch) || {}).offers || [];
  if (!prev || !prev.table) return [];
  return now.filter((o) => Number.isInteger(o) && o !== mySeat && !before.has(o));
}

/** What to tell this seat's player when the offers, theirs among them, were cleared without
 * a rematch (another player declined), or "": "ann declined the rematch." */
export function rematchDeclined(prev, frame, mySeat) {
  const was = prev && prev.table && prev.table.rematch;
  const now = frame.table && frame.table.rematch;
  if (mySeat === null || !was || !(was.offers || []).includes(mySeat)) return "";
  if (!now || (now.offers || []).length || now.url) return "";
  const others = (frame.seats || []).filter((s) => s.kind === "user" && s.index !== mySeat);
  return others.length === 1 ? `${others[0].name} declined the rematch.` : "The rematch was declined.";
}

/** "You resigned.", "ann left the game." or "" for a normal end. */
export function endingText(fin, ctx) {
  const how = ENDING_TEXT[fin.ending] || "";
  if (!how) return "";
  const loser = fin.loser_seat !== null && fin.loser_seat !== undefined ? seatName(fin.loser_seat, ctx) : "";
  if (fin.ending === "timeout") {
    const whose = !loser ? "a clock" : loser === "You" ? "your clock" : `${loser}'s clock`;
    // (the table's own number, from the page: GAMES_MAX_TIMEOUTS)
    const turns = ctx.maxTimeouts ? `${ctx.maxTimeouts} turns` : "turns";
    return `Ended on time: ${whose} ran out ${turns} in a row.`;
  }
  // (it read "Ended by resignation: you.")
  if (loser && fin.ending === "resignation") return `${loser} resigned.`;
  if (loser && fin.ending === "no_show") {
    // when neither came, one of them still lost (the match's rule): both are named
    const others = (fin.absent_seats || []).filter((i) => i !== fin.loser_seat).map((i) => seatName(i, ctx));
    if (!others.length) return `${loser} did not come to the table and ${loser === "You" ? "lose" : "loses"} the game.`;
    const absent = [loser, ...others].sort((a, b) => (b === "You") - (a === "You"));
    return `${absent.join(" and ")} did not come to the table: ${loser === "You" ? "you lose" : `${loser} loses`} the game.`;
  }
  if (loser && fin.ending === "abandonment") return `${loser} left the game and ${loser === "You" ? "lose" : "loses"} it by abandonment.`;
  return `Ended ${how}.`;
}

/** The rating line of the game-over panel: each change once the game is rated, or why a game
 * created rated changes no rating (``finish.unrated``, from the server's one rule), else "". */
export function ratingText(fin, changes, ctx) {
  if (changes.length) return `Rating: ${changes.map(([i, c]) => `${seatName(i, ctx)} ${c}`).join(" · ")}`;
  if (fin && typeof fin.unrated === "string" && fin.unrated) return `Not rated: ${fin.unrated}.`;
  return "";
}

export function renderPanel(ctrl) {
  const p = ctrl.el.panel;
  const v = ctrl.view;
  const shown = p.hidden ? null : p.dataset.shown;
  const key = panelKey(ctrl.frame, v, ctrl);
  const hr = shownResult(v, ctrl);
  if (key === "game-over") {
    p.dataset.kind = "game-over";
    updateChildren(p, gameOverContent(ctrl));
  } else if (key !== null) {
    p.dataset.kind = "hand";
    updateChildren(p, handResultContent(ctrl, hr, true));
  }
  p.hidden = key === null;
  if (key === null) {
    clear(p);
    delete p.dataset.shown;
    return;
  }
  p.dataset.shown = key;
  p.dataset.scrollCue = "down"; // (more of the result below its buttons: site.js says so)
  if (p.dataset.kind === "game-over") fitSheetNames(p); // (on screen now: measurable)
  window.ginScrollCues?.(p);
  if (p.dataset.kind === "hand") store(`gin.result.${ctrl.data.table_id}`, String(hr.hand_number));
  // a phone shows only part of the table: a result that just appeared is brought into view,
  // and a keyboard player lands on its first button (Continue), not on the move buttons it
  // covers
  if (shown !== key) {
    // (once the render is over: the seats' timers, hidden after the panel was drawn, moved
    // it up by their height, and a game-over panel's title ended above the screen)
    requestAnimationFrame(() => reveal(p));
    focusFirstButton(p);
  }
}

/** The last hand of a game played to its end, on the felt under the game-over panel ("Look
 * at the table"): both hands shown as its result showed them. The state it ended in held
 * only what was left in each hand (a knocker's deadwood, the defender's cards face down). */
export function finalHand(ctrl, hr) {
  return h("section", { class: "tbl-final-hand", attrs: { "aria-label": "The last hand" } }, ...handResultContent(ctrl, hr, false));
}

function cardRow(cards, cls = "") {
  const row = h("div", { class: `card-row ${cls}` });
  for (const c of cards) row.append(createCard(c, { small: true }));
  row.setAttribute("aria-label", cards.map(cardLabel).join(" "));
  row.setAttribute("role", "img");
  return row;
}

/** A meld with the cards laid off on it, in their places: a run in rank order (a 2♥ laid
 * off on 3♥ 4♥ 5♥ stands before the 3♥, not after the 5♥), a set with them after. */
export function meldWithLaidOff(meld, laid) {
  const cards = [...meld.map((c) => ({ c, laid: false })), ...laid.map((c) => ({ c, laid: true }))];
  const parsed = meld.map(parseCard);
  const run = parsed.every((p) => p && p.suit === parsed[0].suit);
  if (run && laid.length) cards.sort((a, b) => parseCard(a.c).rank - parseCard(b.c).rank);
  return cards;
}

function meldsBlock(melds, deadwood, laidOff = []) {
  const wrap = h("div", { class: "show-melds" });
  melds.forEach((m, i) => {
    const laid = laidOff.filter(([, idx]) => idx === i).map(([c]) => c);
    const row = h("div", { class: "card-row is-meld", attrs: { role: "img" } });
    for (const { c, laid: isLaid } of meldWithLaidOff(m, laid)) {
      const el = createCard(c, { small: true });
      if (isLaid) el.classList.add("is-laid");
      row.append(el);
    }
    const label = m.map(cardLabel).join(" ");
    row.setAttribute("aria-label", laid.length ? `${label} plus laid off ${laid.map(cardLabel).join(" ")}` : label);
    wrap.append(row);
  });
  if (deadwood.length) wrap.append(cardRow(deadwood, "is-deadwood"));
  return wrap;
}

function handResultContent(ctrl, hr, closable) {
  const ctx = ctxAtHand(ctrl.ctx(), ctrl.frame.seats || [], hr.hand_number);
  const kids = [];
  kids.push(h("h2", { class: "panel-title", text: `Hand ${hr.hand_number}: ${describeHandResult(hr, ctx)}` }));
  if (hr.knocker !== null && hr.knocker !== undefined) {
    const kname = seatName(hr.knocker, ctx);
    const dname = seatName(hr.defender, ctx);
    const kcards = hr.knocker_deadwood_cards || [];
    kids.push(
      h("div", { class: "show-side" }, h("h3", { text: `${kname} ${hr.outcome === "big_gin" ? "(big gin)" : hr.outcome === "gin" ? "(gin)" : "(knocked)"}` }), meldsBlock(hr.knocker_melds || [], kcards, hr.layoffs || []), h("p", { class: "show-dw", text: `Deadwood ${hr.knocker_deadwood}` })),
    );
    const laid = (hr.layoffs || []).map(([c]) => cardLabel(c));
    kids.push(
      h(
        "div",
        { class: "show-side" },
        h("h3", { text: dname }),
        meldsBlock(hr.defender_melds || [], hr.defender_deadwood_cards || []),
        h("p", { class: "show-dw", text: `Deadwood ${hr.defender_deadwood}${laid.length ? ` after laying off ${laid.join(" ")}` : ""}` }),
      ),
    );
    kids.push(h("p", { class: "show-score", text: scoreText(hr, ctx, ctrl.view) }));
  } else if (hr.remaining && hr.remaining.length) {
    const list = h("div", { class: "show-grid" });
    hr.remaining.forEach((cards, i) => {
      list.append(h("div", { class: "show-side" }, h("h3", { text: `${seatName(i, ctx)}${i === hr.winner ? " (out)" : ""}` }), cards.length ? cardRow(cards) : h("p", { class: "muted", text: "No cards left" }), h("p", { class: "show-dw", text: cards.length ? `${plural(cardsValue(cards), "point")} in hand` : "" })));
    });
    kids.push(list);
    if (hr.winner !== null && hr.winner !== undefined) {
      kids.push(h("p", { class: "show-score", text: `${seatName(hr.winner, ctx)} score${seatName(hr.winner, ctx) === "You" ? "" : "s"} ${hr.points}${hr.going_rummy ? ": going rummy doubles it" : ""}.` }));
    }
  }
  if (hr.reason) kids.push(h("p", { class: "muted", text: `(${hr.reason})` }));
  const last = ctrl.view && ctrl.view.last_hand;
  // an earlier result held over the newest: the scores now count both, so the line says what
  // comes instead (resultArrives)
  if (closable && last && last.hand_number > hr.hand_number) kids.push(h("p", { class: "score-line", text: `Hand ${last.hand_number} has ended too: its result follows.` }));
  else kids.push(scoreLine(ctrl, ctx));
  if (closable) {
    kids.push(
      h("div", { class: "tbl-actions" }, h("button", { class: "button", text: "Continue", data: { act: "continue", hand: hr.hand_number }, attrs: { type: "button" }, on: { click: () => ctrl.dismissResult(hr.hand_number) } }), h("button", { class: "button button-secondary", text: "Score sheet", attrs: { type: "button" }, on: { click: () => openSheet(ctrl) } })),
    );
  }
  return kids;
}

/** The totals under a hand's result, named as that hand's players (``ctx``, ``ctxAtHand``:
 * a person who resigned while it was open read "Computer (for erin): 0"). */
function scoreLine(ctrl, ctx) {
  const seats = ctrl.frame.seats || [];
  const line = h("p", { class: "score-line" });
  seats.forEach((s, i) => {
    if (i) line.append(" · ");
    line.append(h("span", { text: `${seatName(i, ctx)}: ${seatScore(ctrl.view, i)}` }));
  });
  return line;
}

function gameOverContent(ctrl) {
  const f = ctrl.frame;
  const v = ctrl.view;
  const fin = f.table.finish || {};
  const ctx = ctrl.ctx();
  const res = v && v.result;
  const winner = gameWinner(res, fin, f.seats || []);
  const kids = [];
  kids.push(h("h2", { class: "panel-title", text: gameOverTitle(winner, Boolean(res), ctx, fin.places) }));
  const ended = endingText(fin, ctx);
  if (ended) kids.push(h("p", { class: "muted", text: ended }));
  // the rating change under the title: below the score sheet it was under the buttons on a
  // phone, to be found by scrolling the panel
  const rc = ctrl.ratings.changeList();
  const rating = ratingText(fin, rc, ctx);
  if (rating) kids.push(h("p", { class: rc.length ? "rating-changes" : "rating-changes rating-unrated", text: rating }));
  // the final score and the places next, where a phone shows them at once (after the last
  // hand and the sheet they stood under the panel's buttons, to be found by scrolling)
  const totals = res ? res.totals : fin.scores;
  if (totals) {
    const grand = h("p", { class: "score-line score-grand" });
    totals.forEach((t, i) => {
      if (i) grand.append(" · ");
      grand.append(h("strong", { text: `${seatName(i, ctx)} ${t}` }));
    });
    kids.push(grand);
    const margin = gameMargin(res, fin);
    if (margin) kids.push(h("p", { class: "muted", text: `Margin ${margin} · ${plural(res.hands_played, "hand")} played` }));
  }
  const places = placesText(fin, ctx, f.seats || [], f.you && f.you.username);
  if (places) kids.push(h("p", { class: "score-places", text: places }));
  // (the last hand of a game it ended stands on the felt: finalHand)
  if (gameEndedByHand(v)) kids.push(h("p", { class: "score-last-hand", text: `Last hand: ${describeHandResult(v.last_hand, ctx)}` }));
  const seats = f.seats || [];
  if (res && res.columns && res.columns.length) kids.push(...finalTables(res, sheetLabels(seats, seats.map((s, i) => seatName(i, ctx)), ctx.mySeat)));
  const actions = h("div", { class: "tbl-actions" });
  const rm = f.table.rematch || { offers: [] };
  const tournament = ctrl.data.tournament_url; // a tournament's match: its next is there
  if (ctrl.mySeat !== null && !tournament) {
    const me = f.you && f.you.username;
    const names = (list) => list.map((o) => (Number.isInteger(o) ? seatName(o, ctx) : (seats.find((s) => s.username === o) || { name: o }).name)).join(", ");
    const panel = rematchPanel(rm, seats, ctrl.mySeat, me, names);
    panel.notes.forEach((text) => kids.push(h("p", { class: text.endsWith("would like a rematch.") ? "rematch-note" : "muted", text })));
    const button = {
      withdraw: () => h("button", { class: "button button-secondary", text: "Withdraw rematch offer", attrs: { type: "button" }, on: { click: () => ctrl.rematch(false) } }),
      offer: () => h("button", { class: "button", text: f.table.offline ? "Play again" : "Offer a rematch", attrs: { type: "button" }, on: { click: () => ctrl.rematch(true) } }),
      accept: () => h("button", { class: "button", text: f.table.offline ? "Play again" : "Accept the rematch", attrs: { type: "button" }, on: { click: () => ctrl.rematch(true) } }),
      decline: () => h("button", { class: "button button-secondary", text: "Decline", attrs: { type: "button" }, on: { click: () => ctrl.rematch(false) } }),
      go: () => null, // (below, for spectators too)
    };
    panel.buttons.forEach((kind) => { const b = button[kind](); if (b) actions.append(b); });
  }
  if (tournament) actions.append(h("a", { class: "button", text: "Back to the tournament", attrs: { href: tournament } }));
  const rematchUrl = tournament ? null : rematchLink(f.table, ctrl.mySeat);
  if (rematchUrl) actions.append(h("a", { class: "button", text: "Go to the rematch", attrs: { href: rematchUrl } }));
  if (fin.url) actions.append(h("a", { class: "button button-secondary", text: "Game record", attrs: { href: fin.url } }));
  if (!tournament) actions.append(h("a", { class: "button button-secondary", text: "Back to the room", attrs: { href: ctrl.data.room_url } }));
  if (v) actions.append(h("button", { class: "button button-secondary", text: "Look at the table", attrs: { type: "button" }, on: { click: () => ctrl.showGameOver(false) } }));
  kids.push(actions);
  return kids;
}
