// The page is bundled by build.mjs into dist/index.js; these are its declared exports.
/**
 * The playground page every server serves at `/`: send a request or paste a recorded stream, and see its
 * events, item tree and the stream checker's verdict on every rule; a self-contained HTML document and script.
 *
 * @packageDocumentation
 */
/** The playground page: an HTML document that loads its script from `./playground.js`. `%BASE_PATH%` is replaced by the server with its API path (e.g. `/v1`). */
export declare const PLAYGROUND_HTML: string;
/** The page's script (an ES module bundling `@openresponses/client` and `@openresponses/events`). */
export declare const PLAYGROUND_SCRIPT: string;
