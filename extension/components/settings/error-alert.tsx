/** An error for the person, announced as an alert; nothing while there is none. */
export function ErrorAlert({ message }: { message: string | undefined }) {
  return message ? (
    <p className="error-text" role="alert">
      {message}
    </p>
  ) : null;
}
