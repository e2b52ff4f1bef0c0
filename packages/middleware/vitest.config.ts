import { project } from "../../vitest.shared.js";

export default project("@resil/middleware");
