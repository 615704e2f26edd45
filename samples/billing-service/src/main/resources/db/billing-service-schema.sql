-- The billing service's own tables. Waybill's tables are created in the same schema by Waybill's
-- Liquibase changelog (waybill.schema: billing).
CREATE SCHEMA IF NOT EXISTS billing;

CREATE TABLE IF NOT EXISTS billing.accounts (
  customer  text        PRIMARY KEY,
  opened_at timestamptz NOT NULL DEFAULT now()
);

-- No unique constraint on order_id, on purpose: the inbox is what keeps an order from being
-- billed twice, and the demo counts payments per order to prove it.
CREATE TABLE IF NOT EXISTS billing.payments (
  id           uuid        PRIMARY KEY,
  order_id     uuid        NOT NULL,
  customer     text        NOT NULL,
  amount_cents bigint      NOT NULL,
  captured_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS payments_order_idx ON billing.payments (order_id);
