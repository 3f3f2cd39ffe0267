// The daemon's lifecycle: find the binary, start `tether serve`, speak
// JSON-RPC over its stdio, initialize, restart it with backoff when it dies,
// and stop it cleanly. Everything else talks to the daemon through here.

import * as cp from "node:child_process";
import * as os from "node:os";
import * as readline from "node:readline";
import * as vscode from "vscode";
import {
  CancellationToken as RpcCancellationToken,
  HandlerResult,
  MessageConnection,
  NotificationType,
  RequestParam,
  RequestType,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  createMessageConnection,
} from "vscode-jsonrpc/node";

import { RestartPolicy } from "./backoff";
import { logDaemonLine } from "./daemonLog";
import { daemonSettings, readConfig } from "./config";
import { Exists, daemonPath, ensureExecutable, fileExists, findRipgrep, platformDir } from "./paths";
import {
  InitializeParams,
  InitializeResult,
  LogMessageParams,
  exit as exitMethod,
  initialize,
  initialized,
  logMessage,
  shutdown,
} from "./protocol";

export type DaemonState = "stopped" | "starting" | "ready" | "restarting" | "failed";

/** Handles a daemon → client request; token is cancelled by $/cancelRequest. */
export type RequestHandler<P, R> = (params: P, token: RpcCancellationToken) => HandlerResult<R, void>;
export type NotificationHandler<P> = (params: P) => void;

export interface DaemonOptions {
  extensionPath: string;
  clientVersion: string;
  log: vscode.LogOutputChannel;
  policy?: RestartPolicy;
  /** Starts the process; tests pass a fake. */
  spawn?: (command: string, args: string[], options: cp.SpawnOptions) => cp.ChildProcess;
  exists?: Exists;
  /** Schedules a restart; tests capture the delays instead of waiting. */
  schedule?: (fn: () => void, ms: number) => { dispose(): void };
  /** How long stop() waits for each step of a clean shutdown. */
  stopStepMs?: number;
  /** How long a starting daemon may take to answer initialize before it counts as hung. */
  initializeTimeoutMs?: number;
}

const defaultSchedule = (fn: () => void, ms: number) => {
  const t = setTimeout(fn, ms);
  return { dispose: () => clearTimeout(t) };
};

/** A daemon failure worth telling the user about in so many words. */
export class DaemonError extends Error {}

/** A daemon that started but never answered initialize. */
class HungError extends DaemonError {}

export class Daemon implements vscode.Disposable {
  private currentState: DaemonState = "stopped";
  private proc: cp.ChildProcess | undefined;
  private conn: MessageConnection | undefined;
  private starting: Promise<MessageConnection> | undefined;
  private restartTimer: { dispose(): void } | undefined;
  private startedAt = 0;
  /** Bumped by every start and stop, so events of an older process are ignored. */
  private generation = 0;
  /** A generation whose exit is expected: no restart follows it. */
  private quietExit = -1;
  private disposed = false;
  private lastError: string | undefined;
  /** The generation killed for not answering initialize. */
  private hungGeneration = -1;
  private readonly policy: RestartPolicy;
  private readonly spawn: NonNullable<DaemonOptions["spawn"]>;
  private readonly exists: Exists;
  private readonly schedule: NonNullable<DaemonOptions["schedule"]>;
  /** How each handled method is set up on a connection, by method. */
  private readonly requestHandlers = new Map<string, (conn: MessageConnection) => void>();
  private readonly notificationHandlers = new Map<string, (conn: MessageConnection) => void>();
  /** Every handler of a notification, called in turn, by method. */
  private readonly notificationChains = new Map<string, NotificationHandler<never>>();
  private readonly stateEmitter = new vscode.EventEmitter<DaemonState>();
  private readonly startEmitter = new vscode.EventEmitter<MessageConnection>();
  private readonly stopEmitter = new vscode.EventEmitter<void>();

  /** Fires on every state change. */
  readonly onDidChangeState = this.stateEmitter.event;
  /** Fires once a daemon is initialized, before any call waiting for it goes out. */
  readonly onDidStart = this.startEmitter.event;
  /** Fires when a daemon goes away, whether it died or was stopped. */
  readonly onDidStop = this.stopEmitter.event;

  /** What the running daemon said in answer to initialize. */
  initializeResult: InitializeResult | undefined;

  constructor(private readonly opts: DaemonOptions) {
    this.policy = opts.policy ?? new RestartPolicy();
    this.spawn = opts.spawn ?? cp.spawn;
    this.exists = opts.exists ?? fileExists;
    this.schedule = opts.schedule ?? defaultSchedule;
    this.onNotification(logMessage, (p) => this.logMessage(p));
  }

  get state(): DaemonState {
    return this.currentState;
  }

  /** The running daemon's process id, if one runs. */
  get pid(): number | undefined {
    return this.proc?.pid;
  }

  /** Why the daemon is down (restarting, or failed), for the status bar's tooltip. */
  get error(): string | undefined {
    return this.lastError;
  }

  /**
   * Handle a daemon → client request on this and every later connection;
   * the method's declaration in protocol.ts types the params and result.
   */
  onRequest<P, R>(type: RequestType<P, R, void>, handler: NoInfer<RequestHandler<P, R>>): void {
    const register = (conn: MessageConnection) => void conn.onRequest(type, handler);
    this.requestHandlers.set(type.method, register);
    if (this.conn) {
      register(this.conn);
    }
  }

  /** Handle a notification; several handlers of one method each get it, in order. */
  onNotification<P>(type: NotificationType<P>, handler: NoInfer<NotificationHandler<P>>): void {
    const before = this.notificationChains.get(type.method) as NotificationHandler<P> | undefined;
    const h: NotificationHandler<P> = before
      ? (p) => {
          before(p);
          handler(p);
        }
      : handler;
    this.notificationChains.set(type.method, h);
    const register = (conn: MessageConnection) => void conn.onNotification(type, h);
    this.notificationHandlers.set(type.method, register);
    if (this.conn) {
      register(this.conn);
    }
  }

  /**
   * The running daemon's connection. Starts the daemon when it is not
   * running, without waiting for a scheduled restart: someone needs it now.
   */
  ready(): Promise<MessageConnection> {
    if (this.disposed) {
      return Promise.reject(new DaemonError("Tether is shutting down."));
    }
    if (this.conn && this.currentState === "ready") {
      return Promise.resolve(this.conn);
    }
    return this.start();
  }

  /**
   * Sends a request once the daemon is ready; token cancels it with
   * $/cancelRequest. The method's declaration in protocol.ts types the
   * params and the result.
   */
  async request<P, R>(
    type: RequestType<P, R, void>,
    params: NoInfer<RequestParam<P>>,
    token?: vscode.CancellationToken,
  ): Promise<R> {
    const conn = await this.ready();
    if (token) {
      return conn.sendRequest(type, params, token as unknown as RpcCancellationToken);
    }
    return conn.sendRequest(type, params);
  }

  /**
   * Sends a notification if a daemon is running; otherwise drops it, since
   * everything notified (diagnostics, dirty files) is sent again on start.
   */
  notify<P>(type: NotificationType<P>, params: NoInfer<RequestParam<P>>): void {
    const conn = this.currentState === "ready" ? this.conn : undefined;
    conn?.sendNotification(type, params).catch((e: unknown) => this.opts.log.warn(`${type.method}: ${errorText(e)}`));
  }

  start(): Promise<MessageConnection> {
    if (this.starting) {
      return this.starting;
    }
    this.restartTimer?.dispose();
    this.restartTimer = undefined;
    const p = this.launch().finally(() => {
      if (this.starting === p) {
        this.starting = undefined;
      }
    });
    this.starting = p;
    return p;
  }

  /** Stops the daemon and starts a fresh one, forgetting past failures. */
  async restart(): Promise<MessageConnection> {
    this.policy.reset();
    await this.stop();
    return this.start();
  }

  /**
   * Stops the daemon: shutdown and exit as in LSP, then SIGTERM, then
   * SIGKILL, each after a short wait, so a stuck daemon cannot outlive us.
   */
  async stop(): Promise<void> {
    this.restartTimer?.dispose();
    this.restartTimer = undefined;
    const gen = ++this.generation;
    this.quietExit = gen;
    const conn = this.conn;
    const proc = this.proc;
    this.conn = undefined;
    this.proc = undefined;
    this.starting = undefined;
    this.initializeResult = undefined;
    const step = this.opts.stopStepMs ?? 2000;
    if (conn) {
      this.stopEmitter.fire();
      try {
        await withTimeout(conn.sendRequest(shutdown), step);
        await conn.sendNotification(exitMethod);
      } catch (e) {
        this.opts.log.debug(`shutdown: ${errorText(e)}`);
      }
    }
    if (proc) {
      proc.stdin?.end();
      if (!(await exited(proc, step))) {
        proc.kill("SIGTERM");
        if (!(await exited(proc, step))) {
          proc.kill("SIGKILL");
        }
      }
    }
    conn?.dispose();
    if (gen === this.generation) {
      this.setState("stopped");
    }
  }

  dispose(): Promise<void> {
    this.disposed = true;
    const stopped = this.stop();
    void stopped.finally(() => {
      this.stateEmitter.dispose();
      this.startEmitter.dispose();
      this.stopEmitter.dispose();
    });
    return stopped;
  }

  private async launch(): Promise<MessageConnection> {
    const gen = ++this.generation;
    this.setState(this.policy.attempts > 0 ? "restarting" : "starting");
    const cfg = readConfig();
    const folders = vscode.workspace.workspaceFolders ?? [];
    const root = folders.at(0)?.uri.fsPath;
    const binary = daemonPath(cfg.path, this.opts.extensionPath, root);
    if (!this.exists(binary)) {
      const hint = cfg.path
        ? "Check the tether.path setting."
        : `This copy of the extension has no daemon for ${platformDir()}; set tether.path to a tether binary.`;
      throw this.giveUp(gen, `The Tether daemon was not found at ${binary}. ${hint}`);
    }
    if (!cfg.path && !ensureExecutable(binary)) {
      this.opts.log.warn(`${binary} is not executable and its mode could not be changed`);
    }
    this.opts.log.info(`starting ${binary} serve`);
    const proc = this.spawn(binary, ["serve"], {
      cwd: root ?? os.homedir(),
      stdio: ["pipe", "pipe", "pipe"],
      env: process.env,
      windowsHide: true,
    });
    this.proc = proc;
    this.startedAt = Date.now();
    const died = new Promise<never>((_, reject) => {
      proc.once("error", (e) => reject(new DaemonError(`The Tether daemon could not be started: ${e.message}`)));
      proc.once("exit", (code, signal) =>
        reject(new DaemonError(`The Tether daemon exited (${exitText(code, signal)}) before it was ready.`)),
      );
    });
    died.catch(() => undefined);
    proc.on("error", (e) => this.opts.log.error(`daemon process: ${e.message}`));
    proc.on("exit", (code, signal) => this.exited(gen, code, signal));
    if (proc.stderr) {
      readline.createInterface({ input: proc.stderr }).on("line", (line) => logDaemonLine(this.opts.log, line));
    }
    if (!proc.stdout || !proc.stdin) {
      proc.kill();
      throw new DaemonError("The Tether daemon was started without pipes for its input and output.");
    }
    const conn = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin), {
      error: (m) => this.opts.log.error(m),
      warn: (m) => this.opts.log.warn(m),
      info: (m) => this.opts.log.info(m),
      log: (m) => this.opts.log.debug(m),
    });
    for (const register of this.requestHandlers.values()) {
      register(conn);
    }
    for (const register of this.notificationHandlers.values()) {
      register(conn);
    }
    conn.onError(([e]) => this.opts.log.error(`connection: ${e.message}`));
    conn.listen();

    let result: InitializeResult;
    const hangMs = this.opts.initializeTimeoutMs ?? 30_000;
    let hangTimer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      hangTimer = setTimeout(
        () => reject(new HungError(`The Tether daemon did not answer within ${hangMs / 1000} s of starting.`)),
        hangMs,
      );
    });
    hung.catch(() => undefined);
    try {
      result = await Promise.race([conn.sendRequest(initialize, this.initializeParams(cfg)), died, hung]);
      await conn.sendNotification(initialized, {});
    } catch (e) {
      conn.dispose();
      if (e instanceof HungError) {
        // Its exit brings the restart, as for any daemon that died.
        this.hungGeneration = gen;
        proc.kill("SIGKILL");
        throw e;
      }
      if (proc.pid === undefined) {
        // It never ran (no permission to execute, not a program): no exit
        // event will come to schedule a restart, and a retry would fail alike.
        throw this.giveUp(gen, errorText(e));
      }
      if (e instanceof ResponseError) {
        // The daemon answered and refused: starting it again would only be
        // refused again, so stop here and say why.
        proc.kill();
        throw this.giveUp(gen, `The Tether daemon refused to start: ${e.message}`);
      }
      throw e instanceof DaemonError ? e : new DaemonError(errorText(e));
    } finally {
      clearTimeout(hangTimer);
    }
    if (gen !== this.generation) {
      conn.dispose();
      throw new DaemonError("The Tether daemon was stopped while it was starting.");
    }
    this.conn = conn;
    this.initializeResult = result;
    this.lastError = undefined;
    this.opts.log.info(
      `${result.serverInfo.name} ${result.serverInfo.version} ready with ${result.tools?.length ?? 0} tools`,
    );
    this.setState("ready");
    this.startEmitter.fire(conn);
    return conn;
  }

  private initializeParams(cfg: ReturnType<typeof readConfig>): InitializeParams {
    return {
      processId: process.pid,
      clientInfo: { name: "tether-vscode", version: this.opts.clientVersion },
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => ({ uri: f.uri.toString(), name: f.name })),
      capabilities: {
        diagnostics: true,
        approval: true,
        askUser: true,
        todo: true,
        models: true,
        ...(cfg.composeCallsInChat ? { invokeTools: true } : {}),
      },
      settings: daemonSettings(cfg, findRipgrep(vscode.env.appRoot)),
    };
  }

  /** Marks the start as failed for good: no restart until someone asks. */
  private giveUp(gen: number, message: string): DaemonError {
    this.quietExit = gen;
    this.lastError = message;
    this.opts.log.error(message);
    this.setState("failed");
    return new DaemonError(message);
  }

  private exited(gen: number, code: number | null, signal: NodeJS.Signals | null): void {
    if (gen !== this.generation || gen === this.quietExit || this.disposed) {
      return;
    }
    const uptime = Date.now() - this.startedAt;
    const why = gen === this.hungGeneration ? "it did not answer when started" : exitText(code, signal);
    this.opts.log.warn(`the daemon exited (${why}) after ${uptime} ms`);
    this.conn?.dispose();
    this.conn = undefined;
    this.proc = undefined;
    this.initializeResult = undefined;
    this.stopEmitter.fire();
    const delay = this.policy.next(uptime);
    if (delay === undefined) {
      this.lastError = `The Tether daemon kept stopping (${why}); it was restarted ${this.policy.attempts - 1} times.`;
      this.setState("failed");
      void this.reportFailure(this.lastError);
      return;
    }
    this.lastError = `The Tether daemon stopped (${why}) after ${seconds(uptime)}; it is restarted in ${seconds(delay)} (restart ${this.policy.attempts} of ${this.policy.limit}).`;
    this.setState("restarting");
    this.opts.log.info(`restarting the daemon in ${delay} ms`);
    this.restartTimer = this.schedule(() => {
      this.restartTimer = undefined;
      this.start().catch((e: unknown) => this.logStartError(e));
    }, delay);
  }

  /** Logs why a start failed, unless giving up already said so. */
  logStartError(e: unknown): void {
    if (this.currentState !== "failed" || errorText(e) !== this.lastError) {
      this.opts.log.error(errorText(e));
    }
  }

  private async reportFailure(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, "Show Log", "Restart");
    if (choice === "Show Log") {
      this.opts.log.show();
    } else if (choice === "Restart") {
      this.restart().catch((e: unknown) => void vscode.window.showErrorMessage(errorText(e)));
    }
  }

  private logMessage(p: LogMessageParams): void {
    const text = p.message;
    switch (p.type) {
      case 1:
        this.opts.log.error(text);
        break;
      case 2:
        this.opts.log.warn(text);
        break;
      case 3:
        this.opts.log.info(text);
        break;
      default:
        this.opts.log.debug(text);
    }
  }

  private setState(s: DaemonState): void {
    if (s !== this.currentState) {
      this.currentState = s;
      this.stateEmitter.fire(s);
    }
  }
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function exitText(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `exit code ${code}`;
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Waits up to ms for proc to exit; says whether it did. */
function exited(proc: cp.ChildProcess, ms: number): Promise<boolean> {
  if (proc.exitCode !== null || proc.signalCode !== null) {
    return Promise.resolve(true);
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      proc.off("exit", onExit);
      resolve(false);
    }, ms);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    proc.once("exit", onExit);
  });
}
