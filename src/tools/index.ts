// The explicit list of built-in tools: adding a tool means adding a line here.
import type { ToolDeclaration } from "../catalog/declare.ts";
import fileFind from "./file-find.ts";
import fileEdit from "./file-edit.ts";
import fileRead from "./file-read.ts";
import fileWrite from "./file-write.ts";
import plan from "./plan.ts";
import desk from "./desk.ts";
import skillList from "./skill-list.ts";
import skillLoad from "./skill-load.ts";

// Each entry keeps its own argument type; the list only needs the shape.
export const builtinTools: readonly ToolDeclaration<any>[] = [fileRead, fileFind, fileEdit, fileWrite, skillList, skillLoad, plan, desk];
