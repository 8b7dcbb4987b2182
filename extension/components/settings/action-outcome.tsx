/** What a settings action ended with: the daemon's error (an alert) or a short notice (a status). */
export function ActionOutcome({ error, notice }: { error: string | undefined; notice: string | undefined }) {
  if (error) {
    return (
      <p className="error-text" role="alert">
        {error}
      </p>
    );
  }
  return notice ? (
    <p className="notice" role="status">
      {notice}
    </p>
  ) : null;
}
