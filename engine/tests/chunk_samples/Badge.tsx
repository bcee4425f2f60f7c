import React from 'react';

type Props = { label: string };

export function Badge({ label }: Props) {
  return <span className="badge">{label}</span>;
}

export const Empty = () => <span />;
