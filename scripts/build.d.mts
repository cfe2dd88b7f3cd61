/** Types of scripts/build.mjs for the TypeScript callers (benchmarks, tests). */
export declare const ROOT: string
export declare const DIST: string
export declare function isBuildCurrent(): boolean
export declare function ensureBuilt(options?: { quiet?: boolean }): void
