"""rate limits, server-side web sessions, phone verification (auth_events replaced)

Revision ID: 0004
Revises: 0007
Create Date: 2026-11-23 06:30:00
"""
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
import sqlmodel
from alembic import op

import app.models


revision: str = '0004'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('rate_limits',
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
    sa.Column('count', sa.Integer(), nullable=False),
    sa.Column('window_ends', app.models.UTCDateTime(timezone=True), nullable=False),
    sa.Column('next_at', app.models.UTCDateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('key')
    )
    with op.batch_alter_table('rate_limits', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rate_limits_window_ends'), ['window_ends'], unique=False)

    op.create_table('web_sessions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('key_hash', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
    sa.Column('created_at', app.models.UTCDateTime(timezone=True), nullable=False),
    sa.Column('last_seen_at', app.models.UTCDateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('web_sessions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_web_sessions_key_hash'), ['key_hash'], unique=True)
        batch_op.create_index(batch_op.f('ix_web_sessions_user_id'), ['user_id'], unique=False)

    with op.batch_alter_table('auth_events', schema=None) as batch_op:
        batch_op.drop_index('ix_auth_events_key_created')
    op.drop_table('auth_events')

    # tokens issued before tokens expired: they get the default lifetime from now
    tokens = sa.table(
        'api_tokens',
        sa.column('expires_at', app.models.UTCDateTime(timezone=True)),
        sa.column('revoked_at', app.models.UTCDateTime(timezone=True)),
    )
    op.execute(
        tokens.update()
        .where(tokens.c.expires_at.is_(None), tokens.c.revoked_at.is_(None))
        .values(expires_at=datetime.now(UTC) + timedelta(days=90))
    )

    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('phone_verified_at', app.models.UTCDateTime(timezone=True), nullable=True))
    with op.batch_alter_table('reset_codes', schema=None) as batch_op:
        batch_op.add_column(sa.Column('purpose', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False, server_default='reset'))


def downgrade() -> None:
    with op.batch_alter_table('reset_codes', schema=None) as batch_op:
        batch_op.drop_column('purpose')
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('phone_verified_at')

    op.create_table('auth_events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
    sa.Column('created_at', app.models.UTCDateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('auth_events', schema=None) as batch_op:
        batch_op.create_index('ix_auth_events_key_created', ['key', 'created_at'], unique=False)

    with op.batch_alter_table('web_sessions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_web_sessions_user_id'))
        batch_op.drop_index(batch_op.f('ix_web_sessions_key_hash'))
    op.drop_table('web_sessions')
    with op.batch_alter_table('rate_limits', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rate_limits_window_ends'))
    op.drop_table('rate_limits')
