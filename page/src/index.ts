// Entry of the self-contained bundle the daemon injects (page/build.mjs).
import { installPageAgent } from './install.js';

installPageAgent();
