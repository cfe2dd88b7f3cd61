import { describe, expect, it } from 'vitest'
import {
  type FileMergeMode,
  type HashCollisionMode,
  REFUSE_FILE_MERGES,
  filesSharingHashes,
  planFile,
} from './file-hashes.js'

const A = 'A'.repeat(32)
const B = 'B'.repeat(40)
const C = 'C'.repeat(40)
const D = 'D'.repeat(64)

const policy = (
  fileMergeMode: Exclude<FileMergeMode, 'Refuse'>,
  hashCollisionMode: Exclude<HashCollisionMode, 'Refuse'>,
) => ({ fileMergeMode, hashCollisionMode })

describe('filesSharingHashes', () => {
  it('matches a stored File by any one shared hash, each File once', () => {
    const rows = [
      { id: 1, value1: A, value2: null, value3: null },
      { id: 2, value1: null, value2: B, value3: D },
      { id: 1, value1: A, value2: null, value3: null },
    ]
    expect(filesSharingHashes(rows, [null, null, D]).map((r) => r.id)).toEqual([2])
    expect(filesSharingHashes(rows, [A, B, null]).map((r) => r.id)).toEqual([1, 2])
    expect(filesSharingHashes(rows, [C, null, null])).toEqual([])
  })
})

describe('planFile', () => {
  it('inserts when nothing matches', () => {
    expect(planFile([A, null, null], [], policy('Merge', 'FavorIncoming'))).toEqual({
      kind: 'insert',
      hashes: [A, null, null],
      deleteFirst: [],
    })
  })

  it('grows a single match to the superset of hashes', () => {
    expect(planFile([A, B, null], [{ id: 1, hashes: [A, null, D] }], policy('Merge', 'FavorIncoming'))).toEqual({
      kind: 'update',
      ids: [1],
      hashes: [A, B, D],
      deleteFirst: [],
    })
  })

  it('merges several matches into the most recent one, or distributes', () => {
    const matches = [
      { id: 2, hashes: [A, null, null] },
      { id: 1, hashes: [null, null, D] },
    ]
    expect(planFile([A, null, D], matches, policy('Merge', 'FavorIncoming'))).toEqual({
      kind: 'merge',
      primary: 2,
      secondaries: [1],
      hashes: [A, null, D],
      deleteFirst: [],
    })
    expect(planFile([A, null, D], matches, policy('Distribute', 'FavorIncoming'))).toEqual({
      kind: 'update',
      ids: [2, 1],
      deleteFirst: [],
    })
  })

  it('resolves a conflict by hashCollisionMode', () => {
    const existing = [{ id: 1, hashes: [A, B, null] }]
    expect(planFile([A, C, null], existing, policy('Merge', 'FavorIncoming'))).toMatchObject({
      kind: 'update',
      hashes: [A, C, null],
    })
    expect(planFile([A, C, null], existing, policy('Merge', 'FavorExisting'))).toMatchObject({
      kind: 'update',
      hashes: [A, B, null],
    })
    expect(planFile([A, C, null], existing, policy('Merge', 'IgnoreIncoming'))).toMatchObject({ kind: 'skip' })
    expect(planFile([A, C, null], existing, policy('Merge', 'Split'))).toEqual({
      kind: 'update',
      ids: [1],
      deleteFirst: [],
    })
    expect(planFile([A, C, null], existing, policy('Merge', 'IgnoreExisting'))).toEqual({
      kind: 'insert',
      hashes: [null, C, null],
      deleteFirst: [],
    })
    expect(planFile([A, B, null], [{ id: 1, hashes: [A, C, null] }], policy('Merge', 'IgnoreExisting'))).toEqual({
      kind: 'insert',
      hashes: [null, B, null],
      deleteFirst: [],
    })
    expect(
      planFile(
        [A, null, null],
        [
          { id: 1, hashes: [A, C, null] },
          { id: 2, hashes: [A, B, null] },
        ].slice(0, 1),
        policy('Merge', 'IgnoreExisting'),
      ),
    ).toMatchObject({ kind: 'update', ids: [1] })
  })

  it('IgnoreExisting deletes existing Files that conflict with each other, then imports', () => {
    const existing = [
      { id: 1, hashes: [A, B, null] },
      { id: 2, hashes: [null, C, D] },
    ]
    expect(planFile([A, null, D], existing, policy('Merge', 'IgnoreExisting'))).toEqual({
      kind: 'insert',
      hashes: [A, null, D],
      deleteFirst: [1, 2],
    })
  })

  it('IgnoreExisting strips the hashes of a File that conflicts with the incoming one', () => {
    expect(planFile([A, C, D], [{ id: 1, hashes: [A, B, null] }], policy('Merge', 'IgnoreExisting'))).toEqual({
      kind: 'insert',
      hashes: [null, C, D],
      deleteFirst: [],
    })
    expect(
      planFile(
        [A, C, D],
        [
          { id: 1, hashes: [A, B, null] },
          { id: 5, hashes: [null, null, D] },
        ],
        policy('Merge', 'IgnoreExisting'),
      ),
    ).toEqual({ kind: 'update', ids: [5], hashes: [null, C, D], deleteFirst: [] })
  })
})

describe('planFile with the API policy (REFUSE_FILE_MERGES)', () => {
  it('inserts or grows one File as the batch does', () => {
    expect(planFile([A, null, null], [], REFUSE_FILE_MERGES)).toEqual({
      kind: 'insert',
      hashes: [A, null, null],
      deleteFirst: [],
    })
    expect(planFile([A, B, null], [{ id: 1, hashes: [A, null, D] }], REFUSE_FILE_MERGES)).toEqual({
      kind: 'update',
      ids: [1],
      hashes: [A, B, D],
      deleteFirst: [],
    })
  })

  it('refuses to merge several Files, naming them', () => {
    const matches = [
      { id: 2, hashes: [A, null, null], summary: A },
      { id: 1, hashes: [null, null, D], summary: D },
    ]
    expect(planFile([A, null, D], matches, REFUSE_FILE_MERGES)).toEqual({
      kind: 'refuse',
      reason: `These hashes belong to 2 different File Indicators (${A}; ${D}); merging existing Files is not supported`,
    })
  })

  it('refuses a second hash of one kind for a File, naming the one it has', () => {
    expect(
      planFile([A, C, null], [{ id: 1, hashes: [A, B, null], summary: `${A} : ${B}` }], REFUSE_FILE_MERGES),
    ).toEqual({ kind: 'refuse', reason: `File ${A} : ${B} already has the SHA-1 ${B}; a File has one SHA-1` })
  })
})
