// The package ships no types: the one function this project calls.
declare module "cluster-key-slot" {
  /** Redis Cluster hash slot (0..16383) of a key, honouring its hash tag. */
  function calculateSlot(key: string): number;
  export default calculateSlot;
}
