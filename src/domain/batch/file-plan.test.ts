import { describe, expect, it } from 'vitest'
import { planFile } from './file-plan.js'

const A = 'A'.repeat(32)
const B = 'B'.repeat(40)
const C = 'C'.repeat(40)
const D = 'D'.repeat(64)

describe('planFile', () => {
  it('inserts when nothing matches', () => {
    expect(planFile([A, null, null], [], 'Merge', 'FavorIncoming')).toEqual({ kind: 'insert', hashes: [A, null, null], deleteFirst: [] })
  })

  it('grows a single match to the superset of hashes', () => {
    expect(planFile([A, B, null], [{ id: 1, hashes: [A, null, D] }], 'Merge', 'FavorIncoming'))
      .toEqual({ kind: 'update', ids: [1], hashes: [A, B, D], deleteFirst: [] })
  })

  it('merges several matches into the most recent one, or distributes', () => {
    const matches = [{ id: 2, hashes: [A, null, null] }, { id: 1, hashes: [null, null, D] }]
    expect(planFile([A, null, D], matches, 'Merge', 'FavorIncoming')).toEqual({ kind: 'merge', primary: 2, secondaries: [1], hashes: [A, null, D], deleteFirst: [] })
    expect(planFile([A, null, D], matches, 'Distribute', 'FavorIncoming')).toEqual({ kind: 'update', ids: [2, 1], deleteFirst: [] })
  })

  it('resolves a conflict by hashCollisionMode', () => {
    const existing = [{ id: 1, hashes: [A, B, null] }]
    expect(planFile([A, C, null], existing, 'Merge', 'FavorIncoming')).toMatchObject({ kind: 'update', hashes: [A, C, null] })
    expect(planFile([A, C, null], existing, 'Merge', 'FavorExisting')).toMatchObject({ kind: 'update', hashes: [A, B, null] })
    expect(planFile([A, C, null], existing, 'Merge', 'IgnoreIncoming')).toMatchObject({ kind: 'skip' })
    expect(planFile([A, C, null], existing, 'Merge', 'Split')).toEqual({ kind: 'update', ids: [1], deleteFirst: [] })
    expect(planFile([A, C, null], existing, 'Merge', 'IgnoreExisting')).toEqual({ kind: 'insert', hashes: [null, C, null], deleteFirst: [] })
    expect(planFile([A, B, null], [{ id: 1, hashes: [A, C, null] }], 'Merge', 'IgnoreExisting')).toEqual({ kind: 'insert', hashes: [null, B, null], deleteFirst: [] })
    expect(planFile([A, null, null], [{ id: 1, hashes: [A, C, null] }, { id: 2, hashes: [A, B, null] }].slice(0, 1), 'Merge', 'IgnoreExisting'))
      .toMatchObject({ kind: 'update', ids: [1] })
  })

  it('IgnoreExisting deletes existing Files that conflict with each other, then imports', () => {
    const existing = [{ id: 1, hashes: [A, B, null] }, { id: 2, hashes: [null, C, D] }]
    expect(planFile([A, null, D], existing, 'Merge', 'IgnoreExisting')).toEqual({ kind: 'insert', hashes: [A, null, D], deleteFirst: [1, 2] })
  })

  it('IgnoreExisting strips the hashes of a File that conflicts with the incoming one', () => {
    expect(planFile([A, C, D], [{ id: 1, hashes: [A, B, null] }], 'Merge', 'IgnoreExisting')).toEqual({ kind: 'insert', hashes: [null, C, D], deleteFirst: [] })
    expect(planFile([A, C, D], [{ id: 1, hashes: [A, B, null] }, { id: 5, hashes: [null, null, D] }], 'Merge', 'IgnoreExisting'))
      .toEqual({ kind: 'update', ids: [5], hashes: [null, C, D], deleteFirst: [] })
  })
})
