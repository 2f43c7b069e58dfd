// Ratings at the table (docs/protocol.md "ratings"): each player's rating label, known by
// username from the snapshot's seats and from ``ratings`` frames, and each seat's rating
// change once the finished rated game has been rated. No DOM here, so Node can test it.

export class RatingBook {
  constructor() {
    this.labels = new Map(); // username -> "1512" or "1500?"
    this.changes = new Map(); // seat index -> signed change of the game just finished
    this.gameId = null;
  }

  /** A snapshot or state frame: a snapshot carries ``ratings`` ({username: label}); a
   * finished table's ``finish`` may carry ``rating_changes`` ({seat: change}). */
  fromFrame(frame) {
    const labels = frame && frame.ratings;
    if (labels && typeof labels === "object") {
      for (const [username, label] of Object.entries(labels)) {
        if (typeof label === "string") this.labels.set(username, label);
      }
    }
    const fin = frame && frame.table && frame.table.finish;
    if (fin && fin.rating_changes && typeof fin.rating_changes === "object") {
      if (this.gameId !== fin.game_id) this.changes.clear();
      this.gameId = fin.game_id;
      for (const [seat, change] of Object.entries(fin.rating_changes)) {
        if (Number.isInteger(change)) this.changes.set(Number(seat), change);
      }
    }
  }

  /** A ``ratings`` frame. */
  fromRatings(frame) {
    if (frame && frame.game_id !== null && frame.game_id !== undefined && frame.game_id !== this.gameId) {
      this.changes.clear();
      this.gameId = frame.game_id;
    }
    for (const p of (frame && frame.players) || []) {
      if (p.username && typeof p.label === "string") this.labels.set(p.username, p.label);
      if (Number.isInteger(p.change) && Number.isInteger(p.seat)) this.changes.set(p.seat, p.change);
    }
  }

  /** The label shown next to a seated user's name ("" for computers and empty seats). */
  labelOf(seat) {
    return seat && seat.kind === "user" && seat.username ? this.labels.get(seat.username) || "" : "";
  }

  /** [[seat, "+12"], ...] in seat order, or [] before the game has been rated. */
  changeList() {
    return [...this.changes.entries()].sort((a, b) => a[0] - b[0]).map(([seat, c]) => [seat, formatChange(c)]);
  }
}

export function formatChange(change) {
  if (change > 0) return `+${change}`;
  if (change < 0) return `\u2212${Math.abs(change)}`;
  return "±0";
}
