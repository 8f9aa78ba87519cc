/** A complete response: its status, and whether the connection can carry another request. */
export interface Outcome {
  status: number;
  reusable: boolean;
}

/** The longest status line plus headers accepted, as Node's own parser (16 KiB) with room to spare. */
const MAX_HEAD = 64 * 1024;

/**
 * Reads one HTTP/1.x response from latin1 text (one character per byte), as it arrives. Interim
 * 1xx answers are skipped; a malformed response throws.
 */
export class ResponseReader {
  #buf = '';
  #state: 'head' | 'body' | 'size' | 'data' | 'trailer' | 'eof' = 'head';
  #left = 0;
  #status = 0;
  #reusable = true;

  /** Takes the next bytes; returns the outcome once the response is complete, else null. */
  feed(chunk: string): Outcome | null {
    this.#buf += chunk;
    for (;;) {
      switch (this.#state) {
        case 'head': {
          const end = this.#buf.indexOf('\r\n\r\n');
          if (end < 0) return this.#waitFor(MAX_HEAD, 'response head');
          const head = this.#buf.slice(0, end);
          this.#buf = this.#buf.slice(end + 4);
          this.#parseHead(head);
          break;
        }
        case 'body':
        case 'data': {
          const n = Math.min(this.#left, this.#buf.length);
          this.#left -= n;
          this.#buf = this.#buf.slice(n);
          if (this.#left > 0) return null;
          if (this.#state === 'body') return this.#done();
          this.#state = 'size';
          break;
        }
        case 'size': {
          const eol = this.#buf.indexOf('\r\n');
          if (eol < 0) return this.#waitFor(1024, 'chunk size line');
          const m = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/.exec(this.#buf.slice(0, eol));
          if (!m) throw new Error(`malformed chunk size ${JSON.stringify(this.#buf.slice(0, Math.min(eol, 40)))}`);
          this.#buf = this.#buf.slice(eol + 2);
          const size = parseInt(m[1]!, 16);
          // A chunk's data is followed by CRLF, skipped with it.
          if (size > 0) [this.#state, this.#left] = ['data', size + 2];
          else this.#state = 'trailer';
          break;
        }
        case 'trailer': {
          if (this.#buf.startsWith('\r\n')) {
            this.#buf = this.#buf.slice(2);
            return this.#done();
          }
          const end = this.#buf.indexOf('\r\n\r\n');
          if (end < 0) return this.#waitFor(MAX_HEAD, 'trailer');
          this.#buf = this.#buf.slice(end + 4);
          return this.#done();
        }
        case 'eof':
          this.#buf = '';
          return null;
      }
    }
  }

  /** The connection ended: the outcome when the response ends with it, else null (cut short). */
  end(): Outcome | null {
    return this.#state === 'eof' ? { status: this.#status, reusable: false } : null;
  }

  #waitFor(limit: number, what: string): null {
    if (this.#buf.length > limit) throw new Error(`${what} longer than ${limit} bytes`);
    return null;
  }

  #done(): Outcome {
    // Bytes after the response that no request asked for: the connection cannot be trusted.
    return { status: this.#status, reusable: this.#reusable && this.#buf.length === 0 };
  }

  #parseHead(head: string): void {
    const lines = head.split('\r\n');
    const m = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]!);
    if (!m) throw new Error(`not an HTTP/1.x response: ${JSON.stringify(lines[0]!.slice(0, 40))}`);
    const status = Number(m[2]);
    if (status < 100) throw new Error(`status ${m[2]} out of range`);
    if (status < 200) {
      if (status === 101) throw new Error('the receiver switched protocols');
      return; // 100 Continue, 103 Early Hints: the real answer follows
    }
    this.#status = status;
    let close = m[1] === '0';
    let length: string | null = null;
    let coding: string | null = null;
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw new Error(`malformed header line ${JSON.stringify(line.slice(0, 40))}`);
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (!/^\d{1,15}$/.test(value) || (length !== null && length !== value)) throw new Error(`bad content-length ${JSON.stringify(value)}`);
        length = value;
      } else if (name === 'transfer-encoding') coding = coding === null ? value : `${coding}, ${value}`;
      else if (name === 'connection') {
        const tokens = value.toLowerCase().split(',').map((s) => s.trim());
        if (tokens.includes('close')) close = true;
        else if (tokens.includes('keep-alive') && m[1] === '0') close = false;
      }
    }
    if (status === 204 || status === 304) [this.#state, this.#left] = ['body', 0];
    else if (coding !== null) this.#state = /(?:^|,)\s*chunked\s*$/i.test(coding) ? 'size' : 'eof';
    else if (length !== null) [this.#state, this.#left] = ['body', Number(length)];
    else this.#state = 'eof';
    this.#reusable = !close && this.#state !== 'eof';
  }
}
