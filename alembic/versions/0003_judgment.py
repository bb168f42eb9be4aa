"""judgment: per-concern scorer, sensitivity, model state, blocked terms; match probability, kind and feedback

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23 07:35:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import app.models


revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('concerns', schema=None) as batch_op:
        batch_op.add_column(sa.Column('scorer', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False, server_default='model'))
        batch_op.add_column(sa.Column('sensitivity', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False, server_default='balanced'))
        batch_op.add_column(sa.Column('model_state', sa.JSON(), nullable=False, server_default='{}'))
        batch_op.add_column(sa.Column('blocked_terms', sa.JSON(), nullable=False, server_default='[]'))
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.add_column(sa.Column('probability', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False, server_default='item'))
        batch_op.add_column(sa.Column('feedback', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('feedback_at', app.models.UTCDateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.drop_column('feedback_at')
        batch_op.drop_column('feedback')
        batch_op.drop_column('kind')
        batch_op.drop_column('probability')
    with op.batch_alter_table('concerns', schema=None) as batch_op:
        batch_op.drop_column('blocked_terms')
        batch_op.drop_column('model_state')
        batch_op.drop_column('sensitivity')
        batch_op.drop_column('scorer')
