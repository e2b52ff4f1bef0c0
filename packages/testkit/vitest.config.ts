import { project } from "../../vitest.shared.js";

export default project("@resil/testkit", { testTimeout: 60_000, hookTimeout: 60_000 });
