/**
 * Files over HTTP, for every REST version: the ceiling of a buffered upload and the headers of a
 * download (a file name made safe for Content-Disposition).
 */
import type { FastifyReply } from 'fastify'

/**
 * Hard ceiling for a buffered upload. The documentMaxBytes setting (checked by the domain once
 * the body is read) is the real limit; the request context does not exist yet while parsing.
 */
export const UPLOAD_CEILING_BYTES = 1024 * 1024 * 1024

export function attachmentName(fileName: string | null, fallback: string): string {
  const name = (fileName ?? fallback).replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_')
  return `attachment; filename="${name}"`
}

export function sendFile(reply: FastifyReply, contentType: string, body: Buffer | string, disposition: string) {
  return reply.code(200).header('Content-Type', contentType).header('Content-Disposition', disposition).send(body)
}
