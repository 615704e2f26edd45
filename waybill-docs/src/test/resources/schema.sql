CREATE TABLE IF NOT EXISTS orders (id uuid PRIMARY KEY, total_cents bigint NOT NULL);
CREATE TABLE IF NOT EXISTS payments (order_id uuid PRIMARY KEY, cents bigint NOT NULL);
