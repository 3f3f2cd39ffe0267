// The prelude runs in each program's fresh engine before the program. It
// takes the host functions, builds what a program may use (tools, search,
// console), cuts the ways from a value to code generation, and leaves on
// the global object only what the wrapper needs: the runner and the guard
// spliced into every catch block. A program cannot name anything starting
// with __tether (the validator refuses it).
(function (hostCall, hostSearch, hostLog, hostDone, hostLimit, hostNames, hostPlace) {
  "use strict";
  const G = globalThis;
  const Err = G.Error;
  const WeakSetC = G.WeakSet, WeakMapC = G.WeakMap;
  const origThen = Promise.prototype.then;
  const parse = JSON.parse, stringify = JSON.stringify;
  const isArray = Array.isArray, isInteger = Number.isInteger, isSafeInteger = Number.isSafeInteger;
  const defineProperty = Object.defineProperty, freeze = Object.freeze, keys = Object.keys;
  const create = Object.create, getPrototypeOf = Object.getPrototypeOf;
  const Internal = G.InternalError, P = G.Proxy, SetC = G.Set;
  const setAdd = Set.prototype.add, setHas = Set.prototype.has;

  // A limit the engine hits (memory, stack) is an InternalError; one the
  // host hits (calls, time, cancellation) is latched there. Either way the
  // guard throws the error on, so no catch gets past it.
  // When memory runs out the engine may not even have room for an error
  // object, and throws null; a program's own throw null (or rejection with
  // null) is marked, so only the engine's counts as the memory limit.
  let ownNullish = 0;
  function thrown(v) {
    if (v === null || v === undefined) ownNullish++;
    return v;
  }
  function limitKind(e) {
    if (e instanceof Internal) return String(e.message || "out of memory");
    if (e === null || e === undefined) {
      if (ownNullish > 0) ownNullish--;
      else return "out of memory";
    }
    return "";
  }
  function guard(e) {
    if (hostLimit(limitKind(e))) throw e;
    annotate(e);
  }

  // Every loop iteration and every call of the program's own functions
  // counts a step down (code spliced into the program); past the limit the
  // run ends, whatever the program catches: the host latches the limit and
  // interrupts the engine.
  function over() {
    hostLimit("steps");
    throw new Internal("steps");
  }

  // An error the program catches carries where it happened in the program
  // as written: kind, line and column, and a stack of the program's own
  // frames. A tool's error happens in the prelude, so it carries the place
  // of the call that failed.
  const annotated = new WeakSetC(), sites = new WeakMapC();
  const setAdd2 = WeakSetC.prototype.add, setHas2 = WeakSetC.prototype.has;
  const mapGet = WeakMapC.prototype.get, mapSet = WeakMapC.prototype.set;
  function annotate(e) {
    if (e === null || typeof e !== "object" || !(e instanceof Err) || setHas2.call(annotated, e)) return;
    setAdd2.call(annotated, e);
    try {
      const p = parse(hostPlace(String(mapGet.call(sites, e) || e.stack || "")));
      e.kind = String(e.name);
      if (p.line > 0) {
        e.line = p.line;
        e.column = p.column;
      }
      e.stack = p.stack;
    } catch (x) {
      // A frozen error, or no memory left to describe it: leave it as it is.
    }
  }
  const errToString = Err.prototype.toString;
  defineProperty(Err.prototype, "toString", {
    value: function toString() {
      const s = errToString.call(this);
      return typeof this.line === "number" && this.line > 0 ? s + " (line " + this.line + ":" + this.column + ")" : s;
    },
    writable: false, configurable: false,
  });
  const origReject = Promise.reject;
  defineProperty(Promise, "reject", {
    value: function reject(v) { return origReject.call(this, thrown(v)); },
    writable: false, configurable: false,
  });

  // Rejection handlers go through the guard too: .catch, .then(_, f) and
  // Promise.allSettled cannot swallow a limit either.
  defineProperty(Promise.prototype, "then", {
    value: function then(onOk, onErr) {
      const wrapped = typeof onErr === "function" ? function (e) { guard(e); return onErr(e); } : onErr;
      return origThen.call(this, onOk, wrapped);
    },
    writable: false, configurable: false,
  });

  function show(v) {
    if (typeof v === "string") return v;
    if (v instanceof Error) return String(v);
    let s;
    try { s = stringify(v); } catch (e) { guard(e); }
    return s === undefined ? String(v) : s;
  }

  // encode writes tool arguments as JSON, stricter than JSON.stringify:
  // undefined is left out of objects and refused in arrays (never turned
  // into null), integers go out as integers, and numbers JSON cannot carry
  // exactly are refused with the path to them.
  function encode(v, path, seen) {
    switch (typeof v) {
      case "string": return stringify(v);
      case "boolean": return v ? "true" : "false";
      case "number":
        if (v !== v || v === Infinity || v === -Infinity) throw new TypeError(path + " is " + v + ": tool arguments must be finite numbers");
        if (isInteger(v)) {
          if (!isSafeInteger(v)) throw new TypeError(path + " is an integer outside the safe range: pass large identifiers as strings");
          return v === 0 ? "0" : String(v);
        }
        return stringify(v);
      case "object": {
        if (v === null) return "null";
        if (setHas.call(seen, v)) throw new TypeError(path + " refers to itself: tool arguments cannot be circular");
        setAdd.call(seen, v);
        if (isArray(v)) {
          const parts = [];
          for (let i = 0; i < v.length; i++) {
            if (v[i] === undefined) throw new TypeError(path + "[" + i + "] is undefined: leave it out, or pass null if you mean null");
            parts.push(encode(v[i], path + "[" + i + "]", seen));
          }
          seen.delete(v);
          return "[" + parts.join(",") + "]";
        }
        const parts = [];
        for (const k of keys(v)) {
          if (v[k] === undefined) continue;
          parts.push(stringify(k) + ":" + encode(v[k], path + "." + k, seen));
        }
        seen.delete(v);
        return "{" + parts.join(",") + "}";
      }
    }
    throw new TypeError(path + " is a " + typeof v + ": tool arguments are JSON values");
  }

  function invoke(name, args) {
    if (args === undefined) args = {};
    if (args === null || typeof args !== "object" || isArray(args)) {
      throw new TypeError("tools.tether." + name + " takes one object of arguments, like tools.tether." + name + "({...})");
    }
    const json = encode(args, "args", new SetC());
    const site = new Err().stack; // the program's call, for a ToolError
    return origThen.call(hostCall(name, json), function decode(r) {
      if (r.isError) {
        const e = new Err(r.output);
        e.name = "ToolError";
        e.tool = r.metadata.tool;
        e.result = r;
        mapSet.call(sites, e, site);
        throw e;
      }
      return r;
    });
  }

  const names = parse(hostNames());
  const tether = create(null);
  for (const n of names) tether[n] = freeze(function (args) { return invoke(n, args); });
  freeze(tether);
  const strict = (obj, what, list) => new P(obj, {
    get(t, k) {
      if (typeof k !== "string" || k === "then") return undefined;
      if (!(k in t)) throw new TypeError(what + k + " is not in the catalog; " + list);
      return t[k];
    },
    set() { throw new TypeError(what.slice(0, -1) + " cannot be changed"); },
    defineProperty() { return false; },
    deleteProperty() { return false; },
  });
  const tetherNS = strict(tether, "tools.tether.", "search({query}) finds the callable tools");
  const toolsObj = create(null);
  toolsObj.tether = tetherNS;
  freeze(toolsObj);
  const tools = strict(toolsObj, "tools.", "the namespace is tools.tether");

  function search(q) {
    if (typeof q === "string") q = { query: q };
    if (q === undefined) q = {};
    return parse(hostSearch(encode(q, "search", new SetC())));
  }

  const log = function log() {
    const parts = [];
    for (let i = 0; i < arguments.length; i++) parts.push(show(arguments[i]));
    hostLog(parts.join(" "));
  };
  const console = freeze({ log: log, info: log, warn: log, error: log });

  // Strings: the methods that take or give positions count Unicode
  // characters (code points), not UTF-16 units, so an emoji is one.
  const S = String.prototype;
  const nIndexOf = S.indexOf, nLastIndexOf = S.lastIndexOf, nSlice = S.slice, nSubstring = S.substring;
  const nCharAt = S.charAt, nAt = S.at;
  const nCharCodeAt = S.charCodeAt, nCodePointAt = S.codePointAt, fromCodePoint = String.fromCodePoint;
  const surrogate = /[\uD800-\uDFFF]/;
  const nTest = RegExp.prototype.test;
  const plain = (s) => !nTest.call(surrogate, s);
  const unitWidth = (s, u) => {
    const c = nCharCodeAt.call(s, u);
    return c >= 0xD800 && c <= 0xDBFF && u + 1 < s.length && (nCharCodeAt.call(s, u + 1) & 0xFC00) === 0xDC00 ? 2 : 1;
  };
  const toUnit = (s, cp) => { let u = 0; for (let c = 0; c < cp && u < s.length; c++) u += unitWidth(s, u); return u; };
  const toChar = (s, unit) => { let c = 0; for (let u = 0; u < unit && u < s.length; c++) u += unitWidth(s, u); return c; };
  const charLength = (s) => toChar(s, s.length);
  const int = (n, dflt) => { n = Number(n); return n !== n ? dflt : (n === Infinity || n === -Infinity ? n : Math.trunc(n)); };
  const rel = (n, len, dflt) => { n = n === undefined ? dflt : int(n, 0); return n < 0 ? Math.max(len + n, 0) : Math.min(n, len); };
  const method = (name, f) => defineProperty(S, name, { value: f, writable: false, configurable: false });
  method("indexOf", function indexOf(needle, from) {
    const s = String(this);
    if (plain(s)) return nIndexOf.call(s, needle, from);
    const r = nIndexOf.call(s, needle, toUnit(s, Math.max(int(from, 0), 0)));
    return r < 0 ? -1 : toChar(s, r);
  });
  method("lastIndexOf", function lastIndexOf(needle, from) {
    const s = String(this);
    if (plain(s)) return nLastIndexOf.call(s, needle, from);
    const r = nLastIndexOf.call(s, needle, from === undefined ? Infinity : toUnit(s, Math.max(int(from, Infinity), 0)));
    return r < 0 ? -1 : toChar(s, r);
  });
  method("slice", function slice(a, b) {
    const s = String(this);
    if (plain(s)) return nSlice.call(s, a, b);
    const len = charLength(s);
    const from = rel(a, len, 0), to = rel(b, len, len);
    return from >= to ? "" : nSlice.call(s, toUnit(s, from), toUnit(s, to));
  });
  method("substring", function substring(a, b) {
    const s = String(this);
    if (plain(s)) return nSubstring.call(s, a, b);
    const len = charLength(s);
    let from = Math.min(Math.max(int(a, 0), 0), len), to = b === undefined ? len : Math.min(Math.max(int(b, 0), 0), len);
    if (from > to) { const t = from; from = to; to = t; }
    return nSlice.call(s, toUnit(s, from), toUnit(s, to));
  });
  method("charAt", function charAt(i) {
    const s = String(this);
    if (plain(s)) return nCharAt.call(s, i);
    i = int(i, 0);
    if (i < 0 || i >= charLength(s)) return "";
    return fromCodePoint(nCodePointAt.call(s, toUnit(s, i)));
  });
  method("at", function at(i) {
    const s = String(this);
    if (plain(s)) return nAt.call(s, i);
    const len = charLength(s);
    i = int(i, 0);
    if (i < 0) i += len;
    if (i < 0 || i >= len) return undefined;
    return fromCodePoint(nCodePointAt.call(s, toUnit(s, i)));
  });

  // Cut every way from a function value to the code generator.
  for (const f of [function () {}, async function () {}, function* () {}, async function* () {}]) {
    defineProperty(getPrototypeOf(f), "constructor", { value: undefined, writable: false, configurable: false });
  }

  const fix = (name, value) => defineProperty(G, name, { value: value, writable: false, configurable: false, enumerable: false });
  fix("tools", tools);
  fix("search", search);
  fix("console", console);
  fix("__tether_guard", guard);
  fix("__tether_thrown", thrown);
  fix("__tether_over", over);
  fix("__tether_run", function (f) {
    const fail = (e) => {
      const kind = limitKind(e);
      if (kind !== "") {
        hostLimit(kind);
        return hostDone(false, "error", stringify({ name: "InternalError", message: kind, stack: "" }));
      }
      let d;
      if (e instanceof Error) {
        annotate(e);
        d = { name: String(e.name), message: String(e.message), stack: String(e.stack || ""), line: e.line || 0, column: e.column || 0 };
      } else d = { name: "", message: show(e), stack: "" };
      hostDone(false, "error", stringify(d));
    };
    const finish = (v) => {
      if (v === undefined) return hostDone(true, "none", "");
      if (typeof v === "string") return hostDone(true, "text", v);
      let s;
      try { s = stringify(v); } catch (e) { guard(e); s = undefined; }
      if (s === undefined) return hostDone(true, "text", String(v));
      hostDone(true, "json", s);
    };
    origThen.call(f(), finish, fail);
  });
  for (const n of ["__tether_call", "__tether_search", "__tether_log", "__tether_done", "__tether_limit", "__tether_names", "__tether_place",
    "eval", "Function", "Proxy", "Reflect", "Symbol", "WeakRef", "FinalizationRegistry", "InternalError",
    "print", "std", "os", "globalThis"]) {
    delete G[n];
  }
})(__tether_call, __tether_search, __tether_log, __tether_done, __tether_limit, __tether_names, __tether_place);
