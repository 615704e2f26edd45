-- The order service's own table. Waybill's tables (outbox_state, outbox_message, inbox_state) are
-- created in the same schema by Waybill's Liquibase changelog (waybill.schema: orders).
CREATE SCHEMA IF NOT EXISTS orders;

CREATE TABLE IF NOT EXISTS orders.orders (
  id             uuid        PRIMARY KEY,
  customer       text        NOT NULL,
  total_cents    bigint      NOT NULL CHECK (total_cents > 0),
  payment_method text        NOT NULL,
  status         text        NOT NULL,
  placed_at      timestamptz NOT NULL,
  payment_id     uuid,
  paid_at        timestamptz,
  version        bigint      NOT NULL
);

CREATE INDEX IF NOT EXISTS orders_customer_idx ON orders.orders (customer);
