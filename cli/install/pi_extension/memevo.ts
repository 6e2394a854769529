// memevo for Pi: recall before each prompt, learning after each run (docs/agents/pi.md).
// Written by `memevo install pi`, removed by `memevo uninstall pi`; `memevo doctor` checks it.
// Edits are overwritten by the next install (a changed file is backed up first).
// memevo-pi-extension: 1
//
// On Pi's session_start, before_agent_start, agent_end, session_compact and session_shutdown
// it runs `memevo hook --agent pi` and writes {"hook_event_name", "event", "cwd",
// "session_file", "session_id", "model"} to its stdin. before_agent_start waits at most
// RECALL_LIMIT_MS for the recall digest (plain text on stdout) and injects it as a hidden
// message; every other event is fire-and-forget, killed after CAPTURE_LIMIT_MS. Nothing here
// ever throws into Pi or blocks a prompt for longer than the recall limit.

import { spawn } from "node:child_process";

const MEMEVO_COMMAND: string[] = ["memevo"]; // memevo:command (the absolute path, written at install)
const HOOK_ARGS = ["hook", "--agent", "pi"];
const RECALL_LIMIT_MS = 3_000;
const CAPTURE_LIMIT_MS = 30_000;
const MAX_DIGEST_CHARS = 64 * 1024;
const MAX_STRING_CHARS = 50_000; // longer strings (tool output) keep their head and tail
const RECALL_TYPE = "memevo-recall";
// Set for the child processes of a Pi running this extension: a Pi that finds another
// process's id here was started by a Pi (a subagent, or `pi` run by the bash tool).
const PARENT_VAR = "MEMEVO_PI_PID";
const CAPTURED = ["session_start", "agent_end", "session_compact", "session_shutdown"];
const DROPPED_KEYS = new Set(["systemPrompt", "systemPromptOptions", "details", "usage", "images"]);

type State = { cwd: string; sessionFile: string | null; sessionId: string | null; model: string | null };

function isSubagent(): boolean {
	try {
		const outer = process.env[PARENT_VAR];
		if (outer && outer !== String(process.pid)) return true;
		// The invocation Pi's subagent example uses for its child agents.
		const argv = process.argv;
		const json = argv.includes("--mode=json") || argv.some((a, i) => a === "--mode" && argv[i + 1] === "json");
		if (json && argv.includes("--no-session")) return true;
		process.env[PARENT_VAR] = String(process.pid);
	} catch {
		// a Pi without a usable environment is treated as the user's own session
	}
	return false;
}

// Reads of ctx throw once Pi has torn the session down (late handlers in print mode):
// every read is guarded and the last good values are kept.
function remember(state: State, ctx: any): void {
	try {
		if (typeof ctx.cwd === "string" && ctx.cwd) state.cwd = ctx.cwd;
	} catch {}
	try {
		const manager = ctx.sessionManager;
		const id = manager.getSessionId();
		state.sessionId = typeof id === "string" && id ? id : null;
		const file = manager.getSessionFile();
		state.sessionFile = typeof file === "string" && file ? file : null;
	} catch {}
	try {
		const model = ctx.model?.id;
		if (typeof model === "string" && model) state.model = model;
	} catch {}
}

// What memevo does not need (system prompt, tool details, image data) is left out and very
// long strings are clipped, so a payload stays small whatever the run did.
function slim(value: any, depth = 0): any {
	if (typeof value === "string") {
		if (value.length <= MAX_STRING_CHARS) return value;
		const half = Math.floor(MAX_STRING_CHARS / 2);
		return `${value.slice(0, half)}\n[… ${value.length - MAX_STRING_CHARS} characters omitted …]\n${value.slice(-half)}`;
	}
	if (value === null || typeof value !== "object" || depth > 24) return typeof value === "object" ? null : value;
	if (Array.isArray(value)) return value.map((item) => slim(item, depth + 1));
	if (value.type === "image") return { type: "image" };
	const out: Record<string, any> = {};
	for (const [key, item] of Object.entries(value)) {
		if (!DROPPED_KEYS.has(key)) out[key] = slim(item, depth + 1);
	}
	return out;
}

function payload(state: State, name: string, event: any): string {
	return JSON.stringify({
		hook_event_name: name,
		event: slim(event),
		cwd: state.cwd,
		session_file: state.sessionFile,
		session_id: state.sessionId,
		model: state.model,
	});
}

// Runs memevo with the payload on stdin; resolves to its stdout ("" on any failure or
// after limitMs, when the process is killed). Never rejects.
function runMemevo(body: string, limitMs: number, wantOutput: boolean): Promise<string> {
	return new Promise((resolve) => {
		let settled = false;
		let output = "";
		let timer: ReturnType<typeof setTimeout> | undefined;
		const finish = (text: string) => {
			if (settled) return;
			settled = true;
			if (timer) clearTimeout(timer);
			resolve(text);
		};
		try {
			const child = spawn(MEMEVO_COMMAND[0], [...MEMEVO_COMMAND.slice(1), ...HOOK_ARGS], {
				stdio: ["pipe", wantOutput ? "pipe" : "ignore", "ignore"],
				windowsHide: true,
			});
			timer = setTimeout(() => {
				try {
					child.kill("SIGKILL");
				} catch {}
				finish("");
			}, limitMs);
			timer.unref?.(); // the running child keeps Pi alive, not this timer
			child.on("error", () => finish(""));
			child.on("close", (code) => finish(code === 0 ? output : ""));
			child.stdout?.setEncoding("utf8");
			child.stdout?.on("data", (chunk: string) => {
				if (output.length < MAX_DIGEST_CHARS) output += chunk;
			});
			child.stdin?.on("error", () => {});
			child.stdin?.end(body);
		} catch {
			finish("");
		}
	});
}

export default function memevo(pi: any) {
	if (isSubagent()) return; // a subagent's work is not the user's session
	const state: State = { cwd: process.cwd(), sessionFile: null, sessionId: null, model: null };

	for (const name of CAPTURED) {
		pi.on(name, (event: any, ctx: any) => {
			try {
				remember(state, ctx);
				void runMemevo(payload(state, name, event), CAPTURE_LIMIT_MS, false);
			} catch {}
			return undefined;
		});
	}

	pi.on("before_agent_start", async (event: any, ctx: any) => {
		try {
			remember(state, ctx);
			const digest = (await runMemevo(payload(state, "before_agent_start", event), RECALL_LIMIT_MS, true)).trim();
			if (!digest) return undefined;
			return { message: { customType: RECALL_TYPE, content: digest.slice(0, MAX_DIGEST_CHARS), display: false } };
		} catch {
			return undefined;
		}
	});
}
