export { addressKey, clientAddress, parseIPv6, type TrustProxy } from "./client-ip.js";
export { InvalidMiddlewareOptionError, MissingKeyError } from "./errors.js";
export { type HeaderSink, rejectionResponse, setAllowHeaders } from "./fetch.js";
export { type FetchHandler, type FetchRateLimit, fetchRateLimit } from "./fetch-limit.js";
export { type AddressOf, isPending, RateLimitGate, type Verdict } from "./gate.js";
export { HEADER_MODES, type HeaderMode, IetfPolicy } from "./headers.js";
export type {
  DecisionHeaders,
  HeldSlot,
  LimiterDecision,
  LimiterLike,
  RateLimitsLike,
  SlotResult,
} from "./limiter-like.js";
export {
  connectMiddleware,
  type NodeHandler,
  type NodeNext,
  type NodeRateLimit,
  nodeAddress,
  nodeRateLimit,
} from "./node.js";
export { applyVerdict, type NodeResponse, releaseWhenDone } from "./node-response.js";
export type { RateLimitOptions } from "./options.js";
export {
  BODY_FORMATS,
  type BodyFormat,
  CONTENT_TYPE_PROBLEM,
  LIMITER_UNAVAILABLE_BODY,
  type RejectionSet,
  type RejectionTemplate,
  rejectionSet,
} from "./rejections.js";
