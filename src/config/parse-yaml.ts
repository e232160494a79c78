/**
 * The yaml package's parser, for CLI config files not in the form simple-yaml.ts reads. A module of
 * its own so that the CLI loads the yaml package (about 260 KB) only when such a file is read.
 */
import { parse } from 'yaml';

/**
 * Parses YAML text.
 * @returns the document, or the first line of the parser's message when the text is not valid YAML
 */
export function parseYaml(text: string): { doc: unknown } | { error: string } {
  try {
    return { doc: parse(text) as unknown };
  } catch (err) {
    return { error: err instanceof Error ? err.message.split('\n')[0]! : String(err) };
  }
}
