// Used by tests/ui/test_js_units.py: reads cases computed by the Python engine on stdin and
// prints the cases where the browser's solver disagrees (an empty list means agreement).
import { bestMelds, bestLayoffs } from "../melds.js";

let input = "";
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
  const cases = JSON.parse(input);
  const wrong = [];
  for (const c of cases.melds) {
    const got = bestMelds(c.hand).deadwood;
    if (got !== c.deadwood) wrong.push({ kind: "melds", hand: c.hand, want: c.deadwood, got });
  }
  for (const c of cases.layoffs) {
    const got = bestLayoffs(c.hand, c.table).deadwood;
    if (got !== c.deadwood) wrong.push({ kind: "layoffs", ...c, got });
  }
  process.stdout.write(JSON.stringify(wrong));
});
