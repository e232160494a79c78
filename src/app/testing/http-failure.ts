/**
 * For tests of the application services: what a call refuses with, as the API would answer it.
 */
import { GpushareError } from '../errors.js';

/**
 * The HTTP status and message of the GpushareError `fn` throws.
 * @throws the error itself when it is not a GpushareError, and an Error when `fn` returns
 */
export function httpFailure(fn: () => unknown): { status: number; message: string } {
  try {
    fn();
  } catch (error) {
    if (error instanceof GpushareError) return { status: error.httpStatus, message: error.message };
    throw error;
  }
  throw new Error('expected a GpushareError');
}
