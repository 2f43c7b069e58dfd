// Whether a socket is still there though it never closed: the server answers every ping at
// once, so a ping with no frame at all for DEAD_MS means the connection went away (a phone
// that changed networks, Wi-Fi off). The table socket (socket.js) and the notification socket
// (notify.js) each keep one; both then drop the socket and reconnect.

export const DEAD_MS = 10000;

export class Liveness {
  constructor() {
    this.since = null; // when the oldest unanswered ping went out
  }

  /** A ping went out at ``now``. */
  pinged(now) {
    if (this.since === null) this.since = now;
  }

  /** A frame came: the socket is alive. */
  heard() {
    this.since = null;
  }

  /** No frame for DEAD_MS after a ping. */
  dead(now) {
    return this.since !== null && now - this.since >= DEAD_MS;
  }
}
