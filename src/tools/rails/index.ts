// The rails, listed explicitly; boot offers each only when its endpoint and credential are set.
import type { ToolDeclaration } from "../../catalog/declare.ts";
import bankSearch from "./bank-search.ts";
import bankGet from "./bank-get.ts";
import librarian from "./librarian.ts";
import research from "./research.ts";

export const railTools: readonly ToolDeclaration[] = [bankSearch, bankGet, librarian, research];
