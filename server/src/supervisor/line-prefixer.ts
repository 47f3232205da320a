/**
 * Writes what a child prints to one stream, each line prefixed with the child's name (`[api] …`). A line split
 * across chunks is held until its end arrives, so lines of different children never interleave mid-line.
 */
export class LinePrefixer {
  private pending = '';

  constructor(
    private readonly prefix: string,
    private readonly write: (text: string) => void,
  ) {}

  push(chunk: Buffer | string): void {
    const text = this.pending + chunk.toString();
    const end = text.lastIndexOf('\n');
    if (end < 0) {
      this.pending = text;
      return;
    }
    this.pending = text.slice(end + 1);
    this.write(
      text
        .slice(0, end)
        .split('\n')
        .map((line) => `${this.prefix}${line}\n`)
        .join(''),
    );
  }

  /** What is left without a final newline (the child exited mid-line). */
  flush(): void {
    if (this.pending) this.write(`${this.prefix}${this.pending}\n`);
    this.pending = '';
  }
}
