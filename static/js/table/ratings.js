// Ratings at the table (docs/protocol.md "ratings"): every snapshot and state frame carries
// ``ratings``, one entry per seated person ({seat, rating, provisional, label, change}),
// answered by the ratings app when games built that version. One shape, one parser: each
// frame's list replaces the last one. No DOM here, so Node can test it.

export class RatingBook {
  constructor() {
    this.entries = new Map(); // seat index -> {label, change}
  }

  /** A snapshot or state frame (any other frame leaves the book as it is). */
  fromFrame(frame) {
    if (!frame || !Array.isArray(frame.ratings)) return;
    this.entries.clear();
    for (const e of frame.ratings) {
      if (!e || !Number.isInteger(e.seat)) continue;
      this.entries.set(e.seat, {
        label: typeof e.label === "string" ? e.label : "",
        change: Number.isInteger(e.change) ? e.change : null,
      });
    }
  }

  /** The label shown next to a seated user's name ("" for computers and empty seats). */
  labelOf(seat) {
    if (!seat || seat.kind !== "user") return "";
    const e = this.entries.get(seat.index);
    return e ? e.label : "";
  }

  /** [[seat, "+12"], ...] in seat order, or [] before the game has been rated. */
  changeList() {
    return [...this.entries.entries()]
      .filter(([, e]) => e.change !== null)
      .sort((a, b) => a[0] - b[0])
      .map(([seat, e]) => [seat, formatChange(e.change)]);
  }
}

export function formatChange(change) {
  if (change > 0) return `+${change}`;
  if (change < 0) return `\u2212${Math.abs(change)}`;
  return "±0";
}
