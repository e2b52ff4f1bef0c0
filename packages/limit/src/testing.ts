// @resil/limit/testing: deterministic simulation helpers for tests and experiments, not for production.
export { SeededRandom } from "./cluster/prng.js";
export {
  type DriveOptions,
  type DriveResult,
  middleWindows,
  pickRoundRobin,
  pickUniform,
  type ReplicaPicker,
  Simulation,
  type SimulationOptions,
  simConfig,
  type WindowCount,
} from "./cluster/simulation.js";
