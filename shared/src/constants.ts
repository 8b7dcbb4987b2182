/**
 * Identity and limits shared by the extension and the native host. Each value is defined here
 * and nowhere else; a unit test in native-host checks that the extension id really is derived
 * from the committed public key.
 */

/** Product version; a unit test keeps it equal to the versions in the package.json files. */
export const VERSION = '0.1.0';

/**
 * Wire protocol version. Bumped only on incompatible changes; both sides announce it in
 * `daemon.hello` so a mismatch is reported instead of misread.
 */
export const PROTOCOL_VERSION = 1;

/**
 * Set in the environment of every process NextAI starts for the agent (shells, terminals, launched
 * apps). The daemon refuses the person's authority to any caller that carries it, besides the
 * callers it can trace to itself by process ancestry or sandbox.
 */
export const AGENT_PROCESS_ENV = 'NEXTAI_AGENT_PROCESS';

/** Native-messaging host name, as registered in the host manifests. */
export const NATIVE_HOST_NAME = 'com.nextai.agent';

/**
 * Public key (base64 DER SubjectPublicKeyInfo) set as the manifest `key` of the Chromium build.
 * Chromium derives the extension id from it, so every build and every profile gets the same id
 * and the native-messaging manifest can name it in `allowed_origins`.
 */
export const CHROME_EXTENSION_PUBLIC_KEY =
  'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAlLQ09IiZEo0OvXxf8ciSeZVvIbWhZTb1wcAL/n3fZsQWruZz6hKhtfL23TVCHsoiJVMSRPW2Eu/jUAhOyGSuudeFvNmNuYIIGumpbOXW/J87s/Ig7X5bMO6x+jGW+5aEa1X4N6M4ciUzLOCEkRBw4jkvlFlFSk7j0vVZB/BdmOR/U5eYxvpnTrF2mmqHUvKzqijqBgwdrMKKecASZBjt0dbIyRGx1BOMxCYuFN+iHM8CgvurzvupsVPYBFvUpzpN8lSnl2vPopvUPb6SVatt1PcSzt8HST0nvyvIw9jqV4lzdTHYLumcWZNuBilR1Cobf347fZiP2pHqe+ARZ47bPQIDAQAB';

/** The Chromium-family extension id that follows from {@link CHROME_EXTENSION_PUBLIC_KEY}. */
export const CHROME_EXTENSION_ID = 'hheemnlpcofneohjkcjfmmiflnfifjmo';

/** Firefox add-on id (`browser_specific_settings.gecko.id`), named in `allowed_extensions`. */
export const FIREFOX_EXTENSION_ID = 'nextai-agent@nextai.dev';

/** Origins the host accepts as its caller: exact ids only, never wildcards. */
export const ALLOWED_CHROME_ORIGINS: readonly string[] = [`chrome-extension://${CHROME_EXTENSION_ID}/`];
export const ALLOWED_FIREFOX_EXTENSIONS: readonly string[] = [FIREFOX_EXTENSION_ID];

const MiB = 1024 * 1024;

/** Chrome closes the port when the host writes a message above 1 MiB. */
export const MAX_HOST_TO_BROWSER_BYTES = 1 * MiB;
/** Chrome refuses to send more than 64 MiB to a host. */
export const MAX_BROWSER_TO_HOST_BYTES = 64 * MiB;
/** Frames between the bridge/CLI and the daemon over the local socket. */
export const MAX_SOCKET_FRAME_BYTES = 64 * MiB;
/**
 * Characters of serialized JSON carried per chunk when a host→browser message is split. A UTF-16
 * code unit encodes to at most 3 bytes of UTF-8 once JSON-escaped again, so 256 Ki units stay
 * below 768 KiB plus a small envelope — under the 1 MiB limit whatever the content.
 */
export const CHUNK_CHARS = 256 * 1024;
/** Bytes per `blobs.read` slice: 512 KiB is about 683 KiB of base64, under 1 MiB with its envelope. */
export const BLOB_SLICE_BYTES = 512 * 1024;

/** Default request time-out for JSON-RPC calls that do not set their own. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** The one command a person runs to register the host with their browsers. */
export const INSTALL_COMMAND = 'npx nextai install';

/**
 * Flags for every Chromium NextAI starts on its own (the daemon's headless browser, the tests'):
 * nothing phones home — no background fetches, component or sync updates, QUIC — and no GPU.
 * `--no-sandbox` because these run as a service user or root, where Chromium refuses its sandbox.
 */
export const QUIET_CHROMIUM_FLAGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
