export type IpFamily = 4 | 6;

export function familyBits(family: IpFamily): 32 | 128 {
  return family === 4 ? 32 : 128;
}
