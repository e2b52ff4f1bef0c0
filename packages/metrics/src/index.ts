export { ATTRIBUTES, CATALOG, type CatalogEntry } from "./catalog.js";
export { type MetricsTarget, type ResilMetricsOptions, resilMetrics, type Sample } from "./from-samples.js";
export {
  type Attributes,
  combine,
  type HistogramPoint,
  type MetricFamily,
  type MetricSource,
  type Point,
} from "./model.js";
export {
  type BatchResult,
  type InstrumentOptions,
  type MeterLike,
  type Registration,
  registerOpenTelemetry,
} from "./opentelemetry.js";
export {
  type PromClientMetric,
  type PromClientRegistry,
  type PromClientValue,
  promClientMetrics,
  registerPromClient,
} from "./prom-client.js";
export { formatPrometheus } from "./prometheus.js";
export { prometheusLabel, prometheusName } from "./prometheus-names.js";
export { type GiveUpLike, RetryRecorder } from "./retry-recorder.js";
