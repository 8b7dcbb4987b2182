/**
 * The light part of `shared/` that the native-messaging bridge needs: constants, errors,
 * JSON-RPC envelopes and chunking — not the tool catalog. `nextai host` starts for every browser
 * connection, so it imports this entry point and loads less.
 */
export * from './constants.js';
export * from './errors.js';
export * from './protocol/chunking.js';
export * from './protocol/jsonrpc.js';
