/**
 * Why a legacy XML request could not be read. The HTTP layer picks the status from it: `too-large`
 * is a 413, `unsupported-media-type` a 415, everything else an InvalidXML 400 document.
 */
export type LegacyXmlErrorReason =
  | 'too-large'
  | 'forbidden-declaration'
  | 'malformed'
  | 'wrong-root'
  | 'no-samples'
  | 'missing-content'
  | 'unsupported-media-type';

/**
 * The only error the pure legacy XML functions throw. Its message is written for the client: the
 * controller puts it verbatim into the `<error>` element of the response document.
 */
export class LegacyXmlError extends Error {
  override readonly name = 'LegacyXmlError';

  constructor(
    message: string,
    readonly reason: LegacyXmlErrorReason = 'malformed',
  ) {
    super(message);
  }
}
