import type { Attributes, MetricFamily, MetricSource } from "./model.js";

/** What an OpenTelemetry instrument takes at creation. */
export interface InstrumentOptions {
  description?: string;
  unit?: string;
}

/** The result handed to a batch callback: one observation per instrument and attribute set. */
export interface BatchResult<O> {
  observe(observable: O, value: number, attributes?: Attributes): void;
}

/**
 * The part of `@opentelemetry/api`'s `Meter` used here, kept structural so this package has no run-time
 * dependency: pass `metrics.getMeter("resil")` (a no-op until an SDK is registered).
 */
export interface MeterLike<O extends object = object> {
  createObservableCounter(name: string, options?: InstrumentOptions): O;
  createObservableGauge(name: string, options?: InstrumentOptions): O;
  addBatchObservableCallback(callback: (result: BatchResult<O>) => void, observables: O[]): void;
  removeBatchObservableCallback(callback: (result: BatchResult<O>) => void, observables: O[]): void;
}

export interface Registration {
  /** Stops observing: the instruments report nothing more from this source. */
  unregister(): void;
}

interface Instrument<O> {
  observable: O;
  read(family: MetricFamily, result: BatchResult<O>): void;
}

/**
 * Observes a source's families through OpenTelemetry instruments, read once per collection. Counters
 * and gauges map one to one; a histogram (OpenTelemetry has no observable histogram) becomes two
 * counters, `<name>.count` and `<name>.sum`. The families are those the source returns when called here.
 */
export function registerOpenTelemetry<O extends object>(
  meter: MeterLike<O>,
  source: MetricSource,
): Registration {
  const instruments = new Map<string, Instrument<O>[]>();
  for (const f of source()) {
    const options = { description: f.description, unit: f.unit };
    if (f.kind === "histogram") {
      const count = meter.createObservableCounter(`${f.name}.count`, {
        description: options.description,
        unit: "1",
      });
      const sum = meter.createObservableCounter(`${f.name}.sum`, options);
      instruments.set(f.name, [
        { observable: count, read: (fam, r) => observeHistogram(fam, r, count, "count") },
        { observable: sum, read: (fam, r) => observeHistogram(fam, r, sum, "sum") },
      ]);
      continue;
    }
    const observable =
      f.kind === "counter"
        ? meter.createObservableCounter(f.name, options)
        : meter.createObservableGauge(f.name, options);
    instruments.set(f.name, [{ observable, read: (fam, r) => observePoints(fam, r, observable) }]);
  }
  const callback = (result: BatchResult<O>) => {
    for (const f of source()) for (const i of instruments.get(f.name) ?? []) i.read(f, result);
  };
  const observables = [...instruments.values()].flat().map((i) => i.observable);
  meter.addBatchObservableCallback(callback, observables);
  return { unregister: () => meter.removeBatchObservableCallback(callback, observables) };
}

function observePoints<O>(f: MetricFamily, result: BatchResult<O>, observable: O): void {
  if (f.kind === "histogram") return;
  for (const p of f.points) result.observe(observable, p.value, p.attributes);
}

function observeHistogram<O>(
  f: MetricFamily,
  result: BatchResult<O>,
  observable: O,
  part: "count" | "sum",
): void {
  if (f.kind !== "histogram") return;
  for (const p of f.points) result.observe(observable, part === "count" ? p.count : p.sum, p.attributes);
}
