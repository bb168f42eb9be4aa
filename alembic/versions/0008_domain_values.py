"""domain values: the unused is_admin flag goes

Revision ID: 0008
Revises: 0004
Create Date: 2026-11-23 09:45:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0008'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # administration is by shell access (timelypush user list / disable); the flag granted nothing
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('is_admin')


def downgrade() -> None:
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('is_admin', sa.Boolean(), nullable=False, server_default=sa.false())
        )
