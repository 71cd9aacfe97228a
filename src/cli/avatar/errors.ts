/** Why a photo could not become an avatar; one per file, so a folder run can go on. */
export type PhotoProblem =
  | 'empty'
  | 'too-large'
  | 'too-many-pixels'
  | 'not-an-image'
  | 'broken'
  | 'no-decoder';

/** A photo Roster cannot turn into an avatar: names the file, says why and what to do. */
export class PhotoError extends Error {
  constructor(
    readonly file: string,
    readonly problem: PhotoProblem,
    detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'PhotoError';
  }
}
