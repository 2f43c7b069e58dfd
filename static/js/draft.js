// What a message box should hold once its message is sent: a send is answered a moment later,
// and what was typed meanwhile is the next message, not the sent one.

/** The box's text after ``sent`` (the box's value when it was sent) is stored, the box now
    holding ``now``: empty if unchanged; what was typed after it if the box still starts
    with it (leading white space dropped); else untouched (the person edited it). */
export function unsentRest(sent, now) {
  if (now === sent) return "";
  if (now.startsWith(sent)) return now.slice(sent.length).replace(/^\s+/, "");
  return now;
}
