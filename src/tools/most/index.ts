// The Most tools, listed explicitly; boot offers them only when MOST_SERVICE_TOKEN_FILE is set.
import type { ToolDeclaration } from "../../catalog/declare.ts";
import mostHealth from "./most-health.ts";
import mostCreateChat from "./most-create-chat.ts";
import mostSendMessage from "./most-send-message.ts";

export const mostTools: readonly ToolDeclaration[] = [mostHealth, mostCreateChat, mostSendMessage];
