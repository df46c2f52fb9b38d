/** A timestamptz column as an RFC 3339 UTC string with milliseconds, formatted by Postgres (no Date round trip). */
export const rfc3339 = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
