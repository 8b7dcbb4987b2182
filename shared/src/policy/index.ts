export * from './actions.js';
export * from './config.js';
export * from './decision.js';
