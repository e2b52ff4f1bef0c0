export { StoreReplyError, StoreRequestError, StoreUnavailableError } from "./errors.js";
export { MemoryStore } from "./memory-store.js";
