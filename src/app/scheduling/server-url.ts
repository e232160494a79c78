/**
 * The URL jobs reach the server at (`GPUSHARE_URL`) and the PEM of the CA that signed its
 * certificate (`GPUSHARE_CA_CERT`), known only once the server listens: launches wait for it when
 * asked to, so every job gets both.
 */

/** The server's URL for jobs, and the wait for it. */
export class ServerUrl {
  private url: string | null = null;
  private caCert: string | null = null;
  private known: Promise<void> = Promise.resolve();
  private resolve: (() => void) | null = null;

  /** From now on, `whenKnown` waits until `set`. */
  awaitIt(): void {
    if (this.url === null && this.resolve === null) this.known = new Promise((resolve) => (this.resolve = resolve));
  }

  /**
   * Sets the URL (e.g. `https://127.0.0.1:7070`) and the CA's PEM (null: none, e.g. plain HTTP); releases the waiting
   * launches.
   */
  set(url: string, caCertPem: string | null): void {
    this.url = url;
    this.caCert = caCertPem;
    this.resolve?.();
    this.resolve = null;
  }

  /** The URL and CA once known (at once unless `awaitIt` was called and `set` not yet); url null when never set. */
  async whenKnown(): Promise<{ url: string | null; caCert: string | null }> {
    await this.known;
    return { url: this.url, caCert: this.caCert };
  }
}
