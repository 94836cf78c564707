// The explicit list of built-in tools: adding a tool means adding a line here.
import type { ToolDeclaration } from "../catalog/declare.ts";
import fileFind from "./file-find.ts";
import fileRead from "./file-read.ts";
import fileSearch from "./file-search.ts";
import skillList from "./skill-list.ts";
import skillLoad from "./skill-load.ts";
import plan from "./plan.ts";
import desk from "./desk.ts";
import fileEdit from "./file-edit.ts";
import fileWrite from "./file-write.ts";
import scratchRead from "./scratch-read.ts";
import bash from "./bash.ts";
import devCheck from "./dev-check.ts";
import webExtract from "./net/web-extract.ts";
import { taskControl, taskList, taskStatus, yieldUntil } from "./task-tools.ts";

// Each entry keeps its own argument type; the list only needs the shape.
export const builtinTools: readonly ToolDeclaration<any>[] = [scratchRead, fileRead, fileFind, fileSearch, fileEdit, fileWrite, skillList, skillLoad, bash, devCheck, webExtract, plan, desk, taskList, taskStatus, taskControl, yieldUntil];
