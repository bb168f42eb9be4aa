"""domain values: CHECK constraints on the closed value sets, merged_into_id, no is_admin

Revision ID: 0008
Revises: 0004
Create Date: 2026-11-23 09:45:00
"""
import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0008'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# the values as of this revision (app.models' StrEnums), written out so that the migration
# keeps meaning the same when the enums grow
PUSH_MODES = ('instant', 'digest', 'both', 'off')
CHANNEL_MODES = ('instant', 'digest', 'both')
SCOPES = ('host', 'domain', 'any')
SCORERS = ('model', 'kp', 'fish', 'vsm')
SENSITIVITIES = ('precise', 'balanced', 'broad')
PAGE_KINDS = ('item', 'hub')
DELIVERY_STATUSES = ('pending', 'sending', 'sent', 'failed', 'dead')
DELIVERY_KINDS = ('instant', 'digest', 'summary', 'webhook_gone')
DELIVERY_CHANNELS = ('email', 'webhook', 'sms', 'apprise')

CHECKS = {
    'users': [('ck_users_push_mode', 'push_mode', PUSH_MODES)],
    'push_channels': [('ck_push_channels_mode', 'mode', CHANNEL_MODES)],
    'sites': [('ck_sites_scope', 'scope', SCOPES)],
    'concerns': [
        ('ck_concerns_scope', 'scope', SCOPES),
        ('ck_concerns_push_mode', 'push_mode', PUSH_MODES),
        ('ck_concerns_scorer', 'scorer', SCORERS),
        ('ck_concerns_sensitivity', 'sensitivity', SENSITIVITIES),
    ],
    'matches': [('ck_matches_kind', 'kind', PAGE_KINDS)],
    'deliveries': [
        ('ck_deliveries_status', 'status', DELIVERY_STATUSES),
        ('ck_deliveries_kind', 'kind', DELIVERY_KINDS),
        ('ck_deliveries_channel', 'channel', DELIVERY_CHANNELS),
    ],
}

MERGED = re.compile(r'^merged into delivery (\d+)$')


def _deliveries() -> sa.TableClause:
    return sa.table(
        'deliveries',
        sa.column('id', sa.Integer()),
        sa.column('last_error', sa.String()),
        sa.column('merged_into_id', sa.Integer()),
    )


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def upgrade() -> None:
    # administration is by shell access (timelypush user list / disable); the flag granted nothing
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('is_admin')

    with op.batch_alter_table('deliveries', schema=None) as batch_op:
        batch_op.add_column(sa.Column('merged_into_id', sa.Integer(), nullable=True))
        batch_op.create_index(
            batch_op.f('ix_deliveries_merged_into_id'), ['merged_into_id'], unique=False
        )
        batch_op.create_foreign_key(
            'fk_deliveries_merged_into_id', 'deliveries', ['merged_into_id'], ['id']
        )

    # "merged into delivery N" in last_error becomes the column
    deliveries = _deliveries()
    conn = op.get_bind()
    rows = conn.execute(
        sa.select(deliveries.c.id, deliveries.c.last_error).where(
            deliveries.c.last_error.like('merged into delivery %')
        )
    ).all()
    for row_id, last_error in rows:
        match = MERGED.match(last_error)
        if match:
            conn.execute(
                deliveries.update()
                .where(deliveries.c.id == row_id)
                .values(merged_into_id=int(match.group(1)), last_error=None)
            )

    for table, checks in CHECKS.items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            for name, column, values in checks:
                batch_op.create_check_constraint(name, _in(column, values))


def downgrade() -> None:
    for table, checks in CHECKS.items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            for name, _column, _values in checks:
                batch_op.drop_constraint(name, type_='check')

    deliveries = _deliveries()
    conn = op.get_bind()
    rows = conn.execute(
        sa.select(deliveries.c.id, deliveries.c.merged_into_id).where(
            deliveries.c.merged_into_id.is_not(None)
        )
    ).all()
    for row_id, merged_into in rows:
        conn.execute(
            deliveries.update()
            .where(deliveries.c.id == row_id)
            .values(last_error=f'merged into delivery {merged_into}')
        )
    with op.batch_alter_table('deliveries', schema=None) as batch_op:
        batch_op.drop_constraint('fk_deliveries_merged_into_id', type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_deliveries_merged_into_id'))
        batch_op.drop_column('merged_into_id')

    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('is_admin', sa.Boolean(), nullable=False, server_default=sa.false())
        )
