// Types that hold the stand-in `vscode` module (vscode.ts beside this file)
// to the real API in @types/vscode: a member that VS Code does not have, a
// misspelt one, or one whose parameters VS Code would not pass, does not
// compile. Return types are the fake's own (a FakeDocument for a
// TextDocument), so they are not compared.

/**
 * What may stand in for a member of VS Code's type R: a function that
 * takes what VS Code's function takes (its last overload), a primitive or
 * an enum member of R's own type, or for an object any object (one the fake
 * models in part).
 */
export type Member<R> = unknown extends R
  ? unknown
  : R extends (...args: infer A) => unknown
    ? (...args: A) => unknown
    : R extends string | number | boolean | undefined | null
      ? R
      : object;

/**
 * An object literal that offers some of R's members: `satisfies Shape<R>`
 * refuses a member R lacks (an excess property) and a member of the wrong
 * kind.
 */
export type Shape<R> = { [K in keyof R]?: Member<R[K]> };

/**
 * F itself when each of its members (private ones aside) is one of R's,
 * of a kind that fits; else a compile error naming the member. For
 * classes, whose declarations `satisfies` cannot follow: the instance side
 * (`Only<vscode.Uri, Uri>`) and the static side (`Only<typeof vscode.Uri,
 * typeof Uri>`). A number key is an enum's reverse mapping.
 */
export type Only<
  R,
  F extends { [K in keyof F]: K extends keyof R ? Member<R[K]> : K extends number ? string : never },
> = F;
